package retrieve

import (
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

// Snippet limits.
const (
	snippetLines = 12
	snippetChars = 800
)

// focusSpec is what focus looks for in a chunk.
type focusSpec struct {
	terms *lexical.Matcher
	// weights of terms.Terms() (by bit), e.g. their inverse document
	// frequencies.
	weights []float64
	// name is the one name the query is (lexical.Query.Name), or "".
	name string
	// code: the chunk is source code.
	code bool
}

// newFocusSpec is the spec of query q; weight holds the weight of a term
// (its stem), a term without one weighs 1. code is false.
func newFocusSpec(q *lexical.Query, weight map[string]float64) focusSpec {
	m := q.TermSet().Matcher()
	f := focusSpec{terms: m, weights: make([]float64, len(m.Terms())), name: q.Name}
	for i, t := range m.Terms() {
		f.weights[i] = 1
		if x, ok := weight[t]; ok {
			f.weights[i] = x
		}
	}
	return f
}

// covered returns the terms (bits) each line holds.
func (f *focusSpec) covered(lines []string) []uint64 {
	hits := make([]uint64, len(lines))
	for i, ln := range lines {
		hits[i] = f.terms.Covered(ln)
	}
	return hits
}

// focus picks the window of at most snippetLines lines of a chunk that
// covers the most query terms, rarer terms counting more, and returns it as
// the snippet with its own line span, so a citation points at the lines that
// matter rather than the whole chunk. When the query is one name, the line
// defining it starts the window. In code, the span of a window inside a doc
// comment reaches down to the declaration the comment documents, and the
// span of a window inside a definition's body reaches up to its first line,
// so the citation holds what the snippet is about. Without any term match (a
// purely semantic hit) the snippet is the chunk's beginning and the span the
// whole chunk. A snippet cut short ends in "…".
//
// src maps the chunk's lines to source lines when they are not the file's
// (HTML; nil otherwise). The snippet is then the window quoted as it reads
// in the file (srcmap.Quote), so it can be found in the cited lines; the
// span is mapped through src, and the returned map holds the source lines
// of each snippet line. With src nil, so is the returned map: snippet line
// i is source line span.StartLine+i.
func focus(text string, span record.Span, src srcmap.Map, f focusSpec) (string, record.Span, srcmap.Map) {
	lines := strings.Split(text, "\n")
	if src != nil {
		lines = strings.Split(src.Quote(text), "\n")
	}
	hits := f.covered(lines) // the terms (bits) each line holds
	any := slices.ContainsFunc(hits, func(h uint64) bool { return h != 0 })
	def := -1
	if f.name != "" && f.code && src == nil {
		for i, ln := range lines {
			// The name a line defines is a part of it: the other lines
			// need no definition patterns tried.
			if strings.Contains(ln, f.name) && chunk.DefinedName(ln) == f.name {
				def = i
				break
			}
		}
	}
	if (!any && def < 0) || span.Kind != record.SpanLines {
		lo := 0
		for src != nil && lo+1 < len(lines) && strings.TrimSpace(lines[lo]) == "" {
			lo++ // a fence or a rule quotes as nothing
		}
		return clip(lines, lo, len(lines)), span, snippetMap(src, lo, len(lines))
	}
	bestLo, bestHi := bestWindow(lines, hits, f.weights)
	if def >= 0 {
		// The definition with the doc comment right above it.
		bestLo, bestHi = def, def+1
		for bestLo > 0 && def-bestLo < snippetLines/2 && isComment(strings.TrimSpace(lines[bestLo-1])) {
			bestLo--
		}
		chars := 0
		for i := bestLo; i < bestHi; i++ {
			chars += len(lines[i]) + 1
		}
		for ; bestHi < len(lines) && bestHi-bestLo < snippetLines && chars+len(lines[bestHi]) < snippetChars; bestHi++ {
			chars += len(lines[bestHi]) + 1
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
	if def < 0 && bestLo > 0 && bestHi-bestLo < snippetLines && strings.TrimSpace(lines[bestLo-1]) != "" {
		bestLo--
	}
	// Trim trailing blank lines.
	for bestHi-1 > bestLo && strings.TrimSpace(lines[bestHi-1]) == "" {
		bestHi--
	}
	spanLo, spanHi := bestLo, bestHi
	if f.code && src == nil && def < 0 {
		spanLo, spanHi = declarationBounds(lines, bestLo, bestHi)
	}
	if src != nil {
		return clip(lines, bestLo, bestHi), src.Span(bestLo+1, bestHi), snippetMap(src, bestLo, bestHi)
	}
	sp := record.Lines(span.StartLine+spanLo, min(span.StartLine+spanHi-1, span.EndLine))
	return clip(lines, bestLo, bestHi), sp, nil
}

// bestWindow returns the window [lo, hi) of at most snippetLines lines and
// snippetChars bytes, starting on a matching line, whose distinct terms
// weigh the most (ties: more matches).
func bestWindow(lines []string, hits []uint64, weights []float64) (int, int) {
	bestLo, bestHi, bestCover, bestCount := 0, 1, -1.0, -1
	for lo := 0; lo < len(lines); lo++ {
		if hits[lo] == 0 {
			continue // windows start on a matching line
		}
		var cover uint64
		weight, count, chars := 0.0, 0, 0
		for hi := lo; hi < len(lines) && hi-lo < snippetLines; hi++ {
			chars += len(lines[hi]) + 1
			if chars > snippetChars && hi > lo {
				break
			}
			h := hits[hi]
			for fresh := h &^ cover; fresh != 0; fresh &= fresh - 1 {
				weight += weights[bits.TrailingZeros64(fresh)]
			}
			cover |= h
			count += bits.OnesCount64(h)
			if weight > bestCover+1e-9 || (weight > bestCover-1e-9 && count > bestCount) {
				bestLo, bestHi, bestCover, bestCount = lo, hi+1, weight, count
			}
		}
	}
	return bestLo, bestHi
}

// Reach of declarationBounds, in lines.
const (
	docReach  = 30 // from a doc comment down to its declaration
	bodyReach = 25 // from a body up to its definition line
)

// declarationBounds widens the window [lo, hi) of code lines to the
// declaration it is about: a window in a comment block reaches down to the
// code line right after the block (the declaration it documents); a window
// in an indented body reaches up to the nearest less indented line that
// defines a name. It returns the widened bounds.
func declarationBounds(lines []string, lo, hi int) (int, int) {
	comments, nonBlank := 0, 0
	for i := lo; i < hi; i++ {
		if t := strings.TrimSpace(lines[i]); t != "" {
			nonBlank++
			if isComment(t) {
				comments++
			}
		}
	}
	if nonBlank > 0 && 2*comments >= nonBlank {
		end := hi
		for end < len(lines) && end-hi < docReach && isComment(strings.TrimSpace(lines[end])) {
			end++
		}
		if end < len(lines) && end-hi < docReach && strings.TrimSpace(lines[end]) != "" {
			return lo, end + 1
		}
		return lo, hi
	}
	first := lo
	for first < hi && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	if first == hi || chunk.DefinedName(lines[first]) != "" {
		return lo, hi
	}
	ind := textsplit.Indent(lines[first])
	for i := first - 1; i >= 0 && first-i <= bodyReach; i-- {
		t := strings.TrimSpace(lines[i])
		if t == "" || isComment(t) {
			continue
		}
		in := textsplit.Indent(lines[i])
		if in < ind && chunk.DefinedName(lines[i]) != "" {
			return i, hi
		}
		if in < ind {
			ind = in // a less indented statement: keep looking for its definition
		}
	}
	return lo, hi
}

// isComment reports whether a trimmed line is a comment line in one of the
// common syntaxes (or a docstring delimiter).
func isComment(t string) bool {
	for _, p := range []string{"//", "#", "/*", "*", "--", ";", `"""`, "'''"} {
		if strings.HasPrefix(t, p) {
			return !strings.HasPrefix(t, "#include") && !strings.HasPrefix(t, "#define") && !strings.HasPrefix(t, "#[")
		}
	}
	return false
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
