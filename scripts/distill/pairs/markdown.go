package main

import (
	"hash/fnv"
	"regexp"
	"strings"
	"unicode"
)

// Section pairs: markdown headings and their sections' text.
const (
	minSectionWords = 12  // shorter sections say too little to be found
	maxSectionWords = 200 // of a section's text kept
	maxHeadingWords = 16
)

var (
	mdATX       = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	mdSetext    = regexp.MustCompile(`^ {0,3}(=+|-+)\s*$`)
	mdFence     = regexp.MustCompile("^ {0,3}(```|~~~)")
	mdFAQ       = regexp.MustCompile(`^\s*(?:\*\*|__)(?:Q:\s*)?(.+\?)(?:\*\*|__)\s*$|^\s*(?:\*\*)?Q[:.](?:\*\*)?\s*(.+\?)\s*$`)
	mdTableRule = regexp.MustCompile(`^\s*\|?\s*:?-{3,}`)
	mdNumbering = regexp.MustCompile(`^(\d+\.)+\d*\s+`)
	mdCodeLike  = regexp.MustCompile(`[(){}=<>\[\]/\\]|::|->|=>`)
	// docFileSkip are markdown files about a project rather than its use.
	docFileSkip = regexp.MustCompile(`(?i)(^|/)(changelog|changes|history|release|releases|news|code_of_conduct|contributing|security|licen[cs]e|authors|maintainers|governance|pull_request_template|issue_template|support|funding|third.party)[^/]*$`)
)

// genericHeadings pair with too many different sections to teach anything.
var genericHeadings = map[string]bool{
	"table of contents": true, "getting started": true, "quick start": true, "see also": true,
	"more information": true, "further reading": true, "related projects": true, "how to contribute": true,
	"running tests": true, "running the tests": true, "api reference": true, "api documentation": true,
}

// isMarkdown reports whether rel is a markdown file about using the code.
func isMarkdown(rel string) bool {
	l := strings.ToLower(rel)
	return (strings.HasSuffix(l, ".md") || strings.HasSuffix(l, ".markdown")) && !docFileSkip.MatchString(rel)
}

// mdPairs returns the section pairs of the markdown files under dir: each
// heading with its section's text (kind md; for half of the headings,
// chosen by a hash, a question made from the heading instead, kind mdq),
// and each question heading or bold FAQ question with its answer (faq).
func mdPairs(src source, dir string) ([]pair, error) {
	files, err := sourceFiles(dir, src.skip, src.only, isMarkdown)
	if err != nil {
		return nil, err
	}
	var out []pair
	err = readEach(files, dir, func(rel, text string) {
		for _, s := range mdSections(text) {
			body := sectionText(s.body)
			head := cleanHeading(s.heading)
			if head == "" || body == "" {
				continue
			}
			pr := pair{Kind: "md", Mod: src.name, File: rel, Ident: head, Doc: head, Code: body, Original: head}
			switch {
			case s.faq || strings.HasSuffix(head, "?"):
				pr.Kind = "faq"
			case genericHeadings[strings.ToLower(head)]:
				continue
			case hashOf(head)%2 == 1:
				pr.Kind, pr.Doc = "mdq", questionFor(head)
			}
			out = append(out, pr)
		}
	})
	return out, err
}

// section is a heading (or FAQ question) and the lines under it up to the
// next one.
type section struct {
	heading string
	body    []string
	faq     bool
}

// mdSections splits markdown into sections at ATX and setext headings and
// bold FAQ questions outside fenced code; fence lines are dropped.
func mdSections(text string) []section {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []section
	cur := -1
	fence := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := mdFence.FindStringSubmatch(l); m != nil {
			if fence == "" {
				fence = m[1]
			} else if m[1] == fence {
				fence = ""
			}
			continue
		}
		if fence == "" {
			if m := mdATX.FindStringSubmatch(l); m != nil {
				out = append(out, section{heading: m[2]})
				cur = len(out) - 1
				continue
			}
			if i+1 < len(lines) && strings.TrimSpace(l) != "" && mdSetext.MatchString(lines[i+1]) &&
				!strings.HasPrefix(strings.TrimSpace(l), "|") && !strings.HasPrefix(strings.TrimSpace(l), "-") {
				out = append(out, section{heading: strings.TrimSpace(l)})
				cur = len(out) - 1
				i++
				continue
			}
			if m := mdFAQ.FindStringSubmatch(l); m != nil {
				out = append(out, section{heading: m[1] + m[2], faq: true})
				cur = len(out) - 1
				continue
			}
		}
		if cur >= 0 {
			out[cur].body = append(out[cur].body, l)
		}
	}
	return out
}

// sectionText is a section's plain text (markup removed, table rules
// dropped), at most maxSectionWords words, or "" if it is shorter than
// minSectionWords words or mostly not words.
func sectionText(lines []string) string {
	var kept []string
	for _, l := range lines {
		if mdTableRule.MatchString(l) {
			continue
		}
		kept = append(kept, strings.ReplaceAll(l, "|", " "))
	}
	t := plainDoc(strings.Join(kept, "\n"))
	words := strings.Fields(t)
	alpha := 0
	for _, w := range words {
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			alpha++
		}
	}
	if alpha < minSectionWords || alpha*10 < len(words)*6 {
		return ""
	}
	return capWords(t, maxSectionWords)
}

// cleanHeading returns the heading's plain text, or "" for headings that
// are code (signatures, paths), a single word, or too long.
func cleanHeading(h string) string {
	if mdCodeLike.MatchString(plainDoc(mdLink.ReplaceAllString(h, "$1"))) {
		return ""
	}
	t := strings.TrimRight(mdNumbering.ReplaceAllString(plainDoc(h), ""), ":. ")
	words := 0
	for _, w := range strings.Fields(t) {
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			words++
		}
	}
	if words < 2 || words > maxHeadingWords {
		return ""
	}
	return t
}

func hashOf(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// imperatives are verbs that open task headings ("Install the CLI").
var imperatives = map[string]bool{
	"add": true, "build": true, "call": true, "change": true, "check": true, "configure": true, "connect": true,
	"convert": true, "create": true, "customize": true, "debug": true, "define": true, "deploy": true,
	"disable": true, "enable": true, "extend": true, "find": true, "get": true, "handle": true, "install": true,
	"load": true, "make": true, "migrate": true, "parse": true, "read": true, "register": true, "remove": true,
	"run": true, "send": true, "set": true, "setup": true, "start": true, "stop": true, "test": true,
	"update": true, "upgrade": true, "use": true, "write": true, "avoid": true, "pass": true, "return": true,
}

// questionFor turns a heading into the kind of question a user would ask
// about its section, with fixed templates: "How to X" and "Xing Y" become
// "how do I X"/"how do I x Y", an imperative "Install Z" becomes "how do I
// install Z", other headings "what is H", "how does H work" or "tell me
// about H" (chosen by a hash of the heading).
func questionFor(head string) string {
	words := strings.Fields(head)
	for i, w := range words {
		if !isAcronym(w) {
			words[i] = strings.ToLower(w)
		}
	}
	h := strings.Join(words, " ")
	first := words[0]
	switch {
	case strings.HasPrefix(h, "how to "):
		return "how do I " + strings.TrimPrefix(h, "how to ")
	case len(first) > 5 && strings.HasSuffix(first, "ing") && !nonGerunds[first]:
		return "how do I " + strings.Join(append([]string{baseVerb(first)}, words[1:]...), " ")
	case imperatives[first]:
		return "how do I " + h
	}
	switch hashOf(head) / 2 % 3 {
	case 0:
		return "what is " + h
	case 1:
		return "how does " + h + " work"
	}
	return "tell me about " + h
}

var nonGerunds = map[string]bool{"string": true, "strings": true, "something": true, "nothing": true, "everything": true,
	"anything": true, "during": true, "spring": true, "thing": true, "things": true, "ceiling": true, "morning": true}

// baseVerb guesses the base form of a gerund: runn-ing → run,
// configur-ing → configure, handl-ing → handle, install-ing → install.
func baseVerb(g string) string {
	s := strings.TrimSuffix(g, "ing")
	n := len(s)
	switch {
	case n >= 3 && s[n-1] == s[n-2] && !strings.ContainsRune("lsz", rune(s[n-1])):
		return s[:n-1]
	case n >= 2 && (strings.HasSuffix(s, "at") || strings.HasSuffix(s, "iz") || strings.HasSuffix(s, "ur") ||
		strings.HasSuffix(s, "uc") || strings.HasSuffix(s, "ov") || strings.HasSuffix(s, "ag") ||
		strings.HasSuffix(s, "us") || strings.HasSuffix(s, "iv") || strings.HasSuffix(s, "writ") ||
		strings.HasSuffix(s, "ys") || strings.HasSuffix(s, "yz") || strings.HasSuffix(s, "bl") ||
		strings.HasSuffix(s, "dl") || strings.HasSuffix(s, "gl") || strings.HasSuffix(s, "pl") ||
		strings.HasSuffix(s, "rs") || strings.HasSuffix(s, "ns") || strings.HasSuffix(s, "rg") ||
		strings.HasSuffix(s, "nc") || strings.HasSuffix(s, "id") || strings.HasSuffix(s, "ok") && !strings.HasSuffix(s, "ook")):
		return s + "e"
	}
	return s
}

func isAcronym(w string) bool {
	up := 0
	for _, r := range w {
		if unicode.IsUpper(r) {
			up++
		}
	}
	return up >= 2
}
