package corpora

import (
	"html"
	"regexp"
	"strings"
)

// The Python 3.11 documentation as HTML (Debian python3.11-doc): every
// .html page of the manual.
var pyDocs = &Corpus{
	Name: "pydocs",
	Pin:  "Debian python3.11-doc 3.11.2-6+deb12u9 (the *.html pages of /usr/share/doc/python3.11/html)",
	rev:  1,
	fetch: func(c *Cache, dst string) error {
		return fromDebs(c, dst, "usr/share/doc/python3.11/html", suffix(".html"),
			deb{"python3.11-doc", "3.11.2-6+deb12u9", "5b3594189d6ef9a6963ce0347fd307a1cc67620ad697e144db366070e2e146be"})
	},
	masks: map[string]func(string) error{"noquestions": maskFAQ},
}

var faqSet = &Set{
	Corpus: "pydocs", Name: "faq", Variants: []string{Orig, "noquestions"}, prefix: "faq", max: 400,
	Query:    "a question heading of the Python FAQ (faq/*.html), e.g. \"How do I share global variables across modules?\"",
	Relevant: "the HTML source lines of its answer section (heading line to the section's end)",
	gen:      faqItems,
}

// faqQuestion is one FAQ entry: the heading's inner HTML and the source
// lines of its section.
type faqQuestion struct {
	rel, inner string
	start, end int // 1-based heading line .. last line of the section
}

var (
	faqTag     = regexp.MustCompile(`<section[ >]|</section>|<h[1-6][^>]*>.*?</h[1-6]>`)
	faqHeading = regexp.MustCompile(`^<h[1-6][^>]*><a class="toc-backref"[^>]*>(.*?)</a><a class="headerlink"`)
)

// faqQuestions reads the question headings (ending in "?") of the FAQ pages
// and the extent of each one's <section>.
func faqQuestions(root string) ([]faqQuestion, error) {
	var out []faqQuestion
	err := walkFiles(root, func(rel string) bool { return strings.HasPrefix(rel, "faq/") && strings.HasSuffix(rel, ".html") },
		func(rel, text string) error {
			type open struct {
				q *faqQuestion
			}
			var stack []open
			for i, line := range strings.Split(text, "\n") {
				for _, tok := range faqTag.FindAllString(line, -1) {
					switch {
					case strings.HasPrefix(tok, "<section"):
						stack = append(stack, open{})
					case tok == "</section>":
						if n := len(stack); n > 0 {
							if q := stack[n-1].q; q != nil {
								q.end = i // the line before </section>'s line, 1-based
								if q.end < q.start {
									q.end = q.start
								}
								out = append(out, *q)
							}
							stack = stack[:n-1]
						}
					default:
						m := faqHeading.FindStringSubmatch(tok)
						if m == nil || len(stack) == 0 || stack[len(stack)-1].q != nil {
							continue
						}
						if q := strings.TrimSpace(htmlText(m[1])); strings.HasSuffix(q, "?") {
							stack[len(stack)-1].q = &faqQuestion{rel: rel, inner: m[1], start: i + 1}
						}
					}
				}
			}
			return nil
		})
	return out, err
}

func faqItems(root string) ([]Item, error) {
	qs, err := faqQuestions(root)
	if err != nil {
		return nil, err
	}
	var items []Item
	for _, q := range qs {
		text := oneLine(inlineHTMLText(q.inner))
		items = append(items, Item{Key: q.rel + "#" + text, Query: text,
			Rel: map[string]int{lineDoc(q.rel, q.start, q.end): 1}})
	}
	return items, nil
}

var anyTag = regexp.MustCompile(`<[^>]*>`)

// inlineHTMLText is the text of an inline HTML fragment (a heading, a
// purpose line): tags dropped without a trace, entities decoded.
func inlineHTMLText(s string) string { return html.UnescapeString(anyTag.ReplaceAllString(s, "")) }

// maskFAQ deletes the text of every FAQ question from every page (the
// heading, the page's table of contents, any link that quotes it), so only
// the answer can be found.
func maskFAQ(root string) error {
	qs, err := faqQuestions(root)
	if err != nil {
		return err
	}
	var texts []string
	for _, q := range qs {
		texts = append(texts, q.inner)
	}
	return deleteEverywhere(root, ".html", texts)
}

// The PostgreSQL 15 documentation as HTML (Debian postgresql-doc-15).
var pgDocs = &Corpus{
	Name: "pgdocs",
	Pin:  "Debian postgresql-doc-15 15.20-0+deb12u1 (every file of /usr/share/doc/postgresql-doc-15/html)",
	rev:  1,
	fetch: func(c *Cache, dst string) error {
		return fromDebs(c, dst, "usr/share/doc/postgresql-doc-15/html", nil,
			deb{"postgresql-doc-15", "15.20-0+deb12u1", "4c44bf2c599f208b3f46454a6cf7a72e25ec46ff74d37b59dd31ad76b00eebb7"})
	},
	masks: map[string]func(string) error{"nopurpose": maskRefPurpose},
}

var refSet = &Set{
	Corpus: "pgdocs", Name: "refpurpose", Variants: []string{Orig, "nopurpose"}, prefix: "pgr", max: 400,
	Query:    "the one-line purpose of a reference page (SQL commands, client and server applications), e.g. \"change the definition of a table\"",
	Relevant: "the reference page (whole file)",
	gen:      refItems,
}

var refName = regexp.MustCompile(`<div class="refnamediv"><h2><span class="refentrytitle">(.*?)</span></h2><p>(.*?) — (.*?)</p></div>`)

type refPage struct{ rel, purpose string }

func refPages(root string) ([]refPage, error) {
	var out []refPage
	err := walkFiles(root, suffix(".html"), func(rel, text string) error {
		if m := refName.FindStringSubmatch(text); m != nil {
			out = append(out, refPage{rel, m[3]})
		}
		return nil
	})
	return out, err
}

func refItems(root string) ([]Item, error) {
	pages, err := refPages(root)
	if err != nil {
		return nil, err
	}
	var items []Item
	for _, p := range pages {
		q := oneLine(inlineHTMLText(p.purpose))
		if len(strings.Fields(q)) < 3 {
			continue
		}
		items = append(items, Item{Key: p.rel, Query: q, Rel: map[string]int{p.rel: 1}})
	}
	return items, nil
}

// maskRefPurpose deletes " — <purpose>" of every reference page from every
// file: the page's own name line and the lists of commands that repeat it.
func maskRefPurpose(root string) error {
	pages, err := refPages(root)
	if err != nil {
		return err
	}
	var texts []string
	for _, p := range pages {
		texts = append(texts, " — "+p.purpose)
	}
	return deleteEverywhere(root, ".html", texts)
}
