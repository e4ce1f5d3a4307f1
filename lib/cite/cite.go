// Package cite states when a citation is true: the rule a user checks by
// opening the cited lines of the file (dir2mcp.open_file with start_line
// and end_line) and finding the hit's snippet there. The eval harness and
// the tests apply the same rule through Check.
package cite

import (
	"strings"
	"unicode"

	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// Check reports whether snippet, a search hit's text, is found in opened,
// the content open_file returned for the hit's span of a file of docType.
//
// The rule:
//   - Whitespace and control characters are deleted from both: line
//     breaks, indentation and spacing carry no meaning.
//   - An ellipsis "…" in the snippet marks an elision (a snippet cut short
//     ends in one): the snippet's parts between ellipses must occur in the
//     opened text in order, without overlapping. Without one, the snippet
//     must be a substring of the opened text.
//   - For HTML the opened text is first reduced to the text a reader sees
//     (see Visible): markup is not text. The cited lines may begin inside
//     markup that started on an earlier line (a tag, a comment, a script),
//     so reading may also begin just after any ">" of the first line.
//
// A snippet with nothing visible passes.
func Check(snippet, opened, docType string) bool {
	if docType != record.DocHTML {
		return found(snippet, opened)
	}
	if found(snippet, Visible(opened)) {
		return true
	}
	first, _, _ := strings.Cut(opened, "\n")
	for i := 0; i < len(first); i++ {
		if first[i] == '>' && found(snippet, Visible(opened[i+1:])) {
			return true
		}
	}
	return false
}

// found reports whether the parts of snippet between ellipses occur in
// text in order, whitespace and control characters aside.
func found(snippet, text string) bool {
	hay := squeeze(text)
	at := 0
	for part := range strings.SplitSeq(snippet, "…") {
		p := squeeze(part)
		if p == "" {
			continue
		}
		i := strings.Index(hay[at:], p)
		if i < 0 {
			return false
		}
		at += i + len(p)
	}
	return true
}

// squeeze deletes whitespace and control characters.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// Verify checks a citation against a file's content the way open_file
// shows it: the lines sp names of extract.SourceText, without open_file's
// size cap. It is false for a span outside the file or backwards; pages
// and times are not lines of the file and are not verified here.
func Verify(content []byte, docType string, sp record.Span, snippet string) bool {
	if sp.Kind != record.SpanLines || sp.StartLine < 1 || sp.EndLine < sp.StartLine {
		return false
	}
	src, err := extract.SourceText(content, docType)
	if err != nil {
		return false
	}
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if sp.StartLine > len(lines) {
		return false
	}
	return Check(snippet, strings.Join(lines[sp.StartLine-1:min(sp.EndLine, len(lines))], "\n"), docType)
}
