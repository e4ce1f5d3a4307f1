package corpora

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoffText(t *testing.T) {
	src := `.\" comment
.TH strtol 3 2023-02-05 "Linux man-pages 6.03"
.SH NAME
strtol, strtoll \- convert a string to a long integer
.SH DESCRIPTION
The
.BR strtol ()
function converts \fIthe\fP string \[aq]x\[aq].
.TS
allbox;
lb lb
l l.
Interface	Attribute
T{
.BR strtol ()
T}	Thread safety
.TE
`
	got := roffText(src)
	for _, want := range []string{"strtol(3)\n", "NAME\nstrtol, strtoll - convert a string to a long integer\n", "strtol()\nfunction converts the string 'x'.", "Interface  Attribute", "Thread safety"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "allbox") || strings.Contains(got, "comment") || strings.Contains(got, `\f`) {
		t.Errorf("roff control text left:\n%s", got)
	}
	i, d, ok := manSummary(got)
	if !ok || strings.Split(got, "\n")[i][d+3:] != "convert a string to a long integer" {
		t.Errorf("summary not found: %v %v %v", i, d, ok)
	}
}

const rustSample = `//! Crate doc.

/// Returns the number of "}" in s.
///
/// More.
#[inline]
pub fn count(s: &str) -> usize {
    let c = '}'; // not a brace
    let r = r#"{"#;
    s.matches(c).count()
}

pub(crate) struct Hidden;

/// A set of regexes.
pub struct RegexSet<'a> {
    x: [u8; 4],
}

macro_rules! m {
    () => {};
}
`

func TestRustItems(t *testing.T) {
	items := rustItems(rustSample)
	type short struct {
		kind, name string
		pub        bool
		start, end int
	}
	want := []short{{"fn", "count", true, 7, 11}, {"struct", "Hidden", false, 13, 13}, {"struct", "RegexSet", true, 16, 18}, {"macro", "m", true, 20, 22}}
	if len(items) != len(want) {
		t.Fatalf("got %+v", items)
	}
	for i, w := range want {
		it := items[i]
		if (short{it.kind, it.name, it.pub, it.start, it.end}) != w {
			t.Errorf("item %d = %+v, want %+v", i, it, w)
		}
	}
	if items[0].doc != "Returns the number of \"}\" in s.\n\nMore." || items[2].doc != "A set of regexes." {
		t.Errorf("docs %q %q", items[0].doc, items[2].doc)
	}
	s := stripRust(rustSample)
	if strings.Count(s, "\n") != strings.Count(rustSample, "\n") || strings.Contains(s, "Returns") || strings.Contains(s, "not a brace") || !strings.Contains(s, `r#"{"#`) {
		t.Errorf("stripped:\n%s", s)
	}
}

const jsSample = `/**
 * Creates an array of elements split into groups the length of ` + "`size`" + `.
 *
 * @param {Array} array The array.
 * @returns {Array} Returns the new array.
 */
function chunk(array, size) {
  var re = /\/\*[^/]*$/; // a regex that looks like a comment
  return "http://x"; /* trailing */
}

/** Used as a reference. */
var undefined;
`

func TestJSDoc(t *testing.T) {
	defs := jsDocDefs(jsSample)
	if len(defs) != 2 || defs[0].name != "chunk" || defs[0].start != 7 || defs[0].end != 10 || defs[1].name != "undefined" || defs[1].start != 13 || defs[1].end != 13 {
		t.Fatalf("%+v", defs)
	}
	if q := firstSentence(plainMarkdown(defs[0].doc)); q != "Creates an array of elements split into groups the length of size." {
		t.Errorf("sentence %q", q)
	}
	s := stripJS(jsSample)
	if strings.Count(s, "\n") != strings.Count(jsSample, "\n") || strings.Contains(s, "Creates") || strings.Contains(s, "trailing") ||
		strings.Contains(s, "looks like") || !strings.Contains(s, `/\/\*[^/]*$/;`) || !strings.Contains(s, `"http://x";`) {
		t.Errorf("stripped:\n%s", s)
	}
}

func TestMarkdownHeadingsAndMask(t *testing.T) {
	root := t.TempDir()
	md := "---\ntitle: x\n---\n# Install the thing\n\nRun it.\n\n```sh\n# not a heading\n```\n## Empty heading here\n### Configure the thing well\nSet a flag.\n"
	os.MkdirAll(filepath.Join(root, "docs/content"), 0o755)
	os.WriteFile(filepath.Join(root, "docs/content/a.md"), []byte(md), 0o644)
	items, err := headingItems(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Query != "Install the thing" || items[0].Rel["docs/content/a.md:L4-L10"] != 1 ||
		items[1].Query != "Configure the thing well" || items[1].Rel["docs/content/a.md:L12-L13"] != 1 {
		t.Fatalf("%+v", items)
	}
	if err := traefik.masks["noheadings"](root); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "docs/content/a.md"))
	if strings.Contains(string(b), "Install") || !strings.Contains(string(b), "# not a heading") || strings.Count(string(b), "\n") != strings.Count(md, "\n") {
		t.Errorf("masked:\n%s", b)
	}
}

func TestFAQQuestionsAndMask(t *testing.T) {
	root := t.TempDir()
	page := `<ul><li><a class="reference internal" href="#how">How do I do <code>x</code>?</a></li></ul>
<section id="general">
<h2><a class="toc-backref" href="#id1" role="doc-backlink">General</a><a class="headerlink" href="#general">¶</a></h2>
<section id="how">
<h3><a class="toc-backref" href="#id2" role="doc-backlink">How do I do <code>x</code>?</a><a class="headerlink" href="#how">¶</a></h3>
<p>Like this.</p>
</section>
</section>
`
	os.MkdirAll(filepath.Join(root, "faq"), 0o755)
	os.WriteFile(filepath.Join(root, "faq/p.html"), []byte(page), 0o644)
	items, err := faqItems(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Query != "How do I do x?" || items[0].Rel["faq/p.html:L5-L6"] != 1 {
		t.Fatalf("%+v", items)
	}
	if err := maskFAQ(root); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "faq/p.html"))
	if strings.Contains(string(b), "How do I") || !strings.Contains(string(b), "Like this.") {
		t.Errorf("masked:\n%s", b)
	}
}
