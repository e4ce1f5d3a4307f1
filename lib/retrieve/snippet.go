package retrieve

import (
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
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
// the chunk's beginning and the span the whole chunk. A snippet cut short
// ends in "…".
//
// src maps the chunk's lines to source lines when they are not the file's
// (HTML; nil otherwise). The snippet is then the window quoted as it reads
// in the file (srcmap.Quote), so it can be found in the cited lines; the
// span is mapped through src, and the returned map holds the source lines
// of each snippet line. With src nil, so is the returned map: snippet line
// i is source line span.StartLine+i.
func focus(text string, span record.Span, src srcmap.Map, terms []string) (string, record.Span, srcmap.Map) {
	lines := strings.Split(text, "\n")
	if src != nil {
		lines = strings.Split(src.Quote(text), "\n")
	}
	want := lexical.NewTermSet(terms)
	hits := make([]map[string]bool, len(lines))
	any := false
	for i, ln := range lines {
		if c := want.Covered(ln); len(c) > 0 {
			hits[i] = c
			any = true
		}
	}
	if !any || span.Kind != record.SpanLines {
		lo := 0
		for src != nil && lo+1 < len(lines) && strings.TrimSpace(lines[lo]) == "" {
			lo++ // a fence or a rule quotes as nothing
		}
		return clip(lines, lo, len(lines)), span, snippetMap(src, lo, len(lines))
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
	if src != nil {
		return clip(lines, bestLo, bestHi), src.Span(bestLo+1, bestHi), snippetMap(src, bestLo, bestHi)
	}
	sp := record.Lines(span.StartLine+bestLo, min(span.StartLine+bestHi-1, span.EndLine))
	return clip(lines, bestLo, bestHi), sp, nil
}

// snippetMap is the map of the snippet made of lines [lo, hi) (at most
// snippetLines of them), nil for nil.
func snippetMap(src srcmap.Map, lo, hi int) srcmap.Map {
	if src == nil {
		return nil
	}
	return src[lo:min(hi, lo+snippetLines, len(src))]
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

// SnippetSpan returns the source span of the hit's snippet lines first to
// last (0-based, inclusive), so a passage quoted from the snippet cites its
// own lines. It is the hit's span for pages and times.
func (h Hit) SnippetSpan(first, last int) record.Span {
	switch {
	case h.Span.Kind != record.SpanLines:
		return h.Span
	case h.lines != nil:
		return h.lines.Span(first+1, last+1)
	}
	at := func(i int) int { return min(h.Span.StartLine+max(i, 0), h.Span.EndLine) }
	return record.Lines(at(first), max(at(last), at(first)))
}

// endsSentence reports whether a line ends a sentence or a code statement.
func endsSentence(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.ContainsAny(t[len(t)-1:], ".!?:;{}()[],\"'`")
}
