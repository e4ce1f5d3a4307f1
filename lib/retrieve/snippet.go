package retrieve

import (
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// Snippet limits.
const (
	snippetLines = 12
	snippetChars = 800
)

// focus picks the window of at most snippetLines lines of a chunk that covers
// the most distinct query terms, and returns it as the snippet with its own
// line span, so a citation points at the lines that matter rather than the
// whole chunk. Without any term match (a purely semantic hit) the snippet is
// the chunk's beginning and the span the whole chunk.
func focus(text string, span record.Span, want lexical.TermSet) (string, record.Span) {
	lines := strings.Split(text, "\n")
	hits := make([]map[string]bool, len(lines))
	any := false
	for i, ln := range lines {
		if c := want.Covered(ln); len(c) > 0 {
			hits[i] = c
			any = true
		}
	}
	if !any || span.Kind != record.SpanLines {
		return clip(lines, 0, len(lines)), span
	}
	bestLo, bestHi, bestCover, bestCount := 0, 1, -1, -1
	for lo := 0; lo < len(lines); lo++ {
		if hits[lo] == nil {
			continue // windows start on a matching line
		}
		cover := map[string]bool{}
		count, chars := 0, 0
		for hi := lo; hi < len(lines) && hi-lo < snippetLines; hi++ {
			chars += len(lines[hi]) + 1
			if chars > snippetChars && hi > lo {
				break
			}
			for s := range hits[hi] {
				cover[s] = true
				count++
			}
			if len(cover) > bestCover || (len(cover) == bestCover && count > bestCount) {
				bestLo, bestHi, bestCover, bestCount = lo, hi+1, len(cover), count
			}
		}
	}
	// Finish the sentence the window ends in, within the size limits.
	chars := 0
	for i := bestLo; i < bestHi; i++ {
		chars += len(lines[i]) + 1
	}
	for bestHi < len(lines) && bestHi-bestLo < snippetLines && !endsSentence(lines[bestHi-1]) &&
		strings.TrimSpace(lines[bestHi]) != "" && chars+len(lines[bestHi]) < snippetChars {
		chars += len(lines[bestHi]) + 1
		bestHi++
	}
	// Give one line of context before the first match when it fits.
	if bestLo > 0 && bestHi-bestLo < snippetLines && strings.TrimSpace(lines[bestLo-1]) != "" {
		bestLo--
	}
	// Trim trailing blank lines.
	for bestHi-1 > bestLo && strings.TrimSpace(lines[bestHi-1]) == "" {
		bestHi--
	}
	sp := record.Lines(span.StartLine+bestLo, span.StartLine+bestHi-1)
	if sp.EndLine > span.EndLine {
		sp.EndLine = span.EndLine
	}
	return clip(lines, bestLo, bestHi), sp
}

// clip joins lines[lo:hi] and cuts the result to snippetChars on a rune
// boundary.
func clip(lines []string, lo, hi int) string {
	if hi-lo > snippetLines {
		hi = lo + snippetLines
	}
	s := strings.Join(lines[lo:hi], "\n")
	if len(s) <= snippetChars {
		return strings.TrimRight(s, "\n ")
	}
	cut := snippetChars
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// endsSentence reports whether a line ends a sentence or a code statement.
func endsSentence(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.ContainsAny(t[len(t)-1:], ".!?:;{}()[],\"'`")
}
