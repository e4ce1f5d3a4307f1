// Package srcmap records where the lines of an extracted representation
// came from in the source file, so citations name file lines and quotes
// read as the file does.
//
// A representation whose text is the file's own text, line for line (code,
// plain text, markdown, data), needs no map: a nil Map is the identity.
// HTML is rendered as markdown-ish text: a representation line may join
// text from several source lines, several representation lines may come
// from one source line (minified markup), and the extractor adds markup of
// its own ("# " before a heading, list markers, " | " between table cells,
// a link's "[" and "](url)", an image's alt text). A Map says, for each
// representation line, which source lines hold its text (Line.First to
// Line.Last) and which of its bytes are such added markup (Line.Marks).
package srcmap

import (
	"strings"
	"unicode"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// Map holds one Line per representation line, in order (index 0 is line 1).
type Map []Line

// Line says where one representation line came from.
type Line struct {
	// First and Last are the 1-based source lines that hold the line's
	// text, First ≤ Last. A line of markup only (a code fence, a rule) or a
	// blank line names the source line it was made at.
	First, Last int
	// Marks are the line's bytes that are not text of the source file, in
	// order and not overlapping.
	Marks []Mark
}

// Mark is a byte range [From, To) of a representation line that the
// extractor added; a Gap has From == To.
type Mark struct {
	From, To int
	Kind     Kind
}

// Kind says how a quote renders a Mark.
type Kind uint8

const (
	// Drop is markup a quote leaves out: a heading's "# ", a list marker,
	// a link's brackets and URL, an image's alt text, a code fence.
	Drop Kind = iota
	// Sep separates text (a table cell boundary); a quote shows a tab.
	Sep
	// Gap is where source text was left out (a repeated title); a quote
	// shows "…" there, the sign of an elision.
	Gap
)

// Span returns the source lines span of representation lines lo..hi
// (1-based, inclusive): from the least First to the greatest Last among
// them. Lines outside the map clamp to its ends; an empty map is the
// identity. The result always has start ≤ end.
func (m Map) Span(lo, hi int) record.Span {
	if len(m) == 0 {
		return record.Lines(max(lo, 1), max(hi, lo, 1))
	}
	lo = min(max(lo, 1), len(m))
	hi = min(max(hi, lo), len(m))
	first, last := m[lo-1].First, m[lo-1].Last
	for _, l := range m[lo:hi] {
		first, last = min(first, l.First), max(last, l.Last)
	}
	first = max(first, 1)
	return record.Lines(first, max(last, first))
}

// Quote renders text, the representation line l describes, as it reads in
// the file: Drop marks removed, a Sep as a tab, a Gap as "…". Marks past
// the end of text are ignored.
func (l Line) Quote(text string) string {
	if len(l.Marks) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, mk := range l.Marks {
		from, to := min(mk.From, len(text)), min(mk.To, len(text))
		if from < at {
			continue
		}
		b.WriteString(text[at:from])
		switch mk.Kind {
		case Sep:
			b.WriteByte('\t')
		case Gap:
			b.WriteString("…")
		}
		at = to
	}
	b.WriteString(text[at:])
	return b.String()
}

// Quote renders text, whose lines the map describes one for one, as it
// reads in the file (see Line.Quote); a nil map returns text unchanged.
func (m Map) Quote(text string) string {
	if m == nil {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, ln := range lines {
		if i < len(m) {
			lines[i] = m[i].Quote(ln)
		}
	}
	return strings.Join(lines, "\n")
}

// HasText reports whether text, whose lines the map describes, holds any
// text of the file: false for markup alone (a rule, a code fence, alt
// text) or blanks. A nil map is the identity: any non-blank text.
func (m Map) HasText(text string) bool {
	return strings.ContainsFunc(m.Quote(text), func(r rune) bool { return !unicode.IsSpace(r) && r != '…' })
}

// Cut returns the map of a piece of the representation: text starts col
// bytes into representation line start (1-based) and runs over as many
// lines as it has. Marks are shifted and clipped to the piece's bytes. A
// nil map stays nil.
func (m Map) Cut(start, col int, text string) Map {
	if m == nil {
		return nil
	}
	n := strings.Count(text, "\n") + 1
	out := make(Map, 0, n)
	for k := range n {
		i := min(max(start-1+k, 0), len(m)-1)
		if i < 0 {
			break
		}
		l := m[i]
		lineLen := len(text)
		if j := strings.IndexByte(text, '\n'); j >= 0 {
			lineLen, text = j, text[j+1:]
		}
		shift := 0
		if k == 0 {
			shift = col
		}
		var marks []Mark
		for _, mk := range l.Marks {
			from, to := mk.From-shift, mk.To-shift
			if mk.Kind == Gap {
				if from >= 0 && from <= lineLen {
					marks = append(marks, mk.at(from, from))
				}
				continue
			}
			if from, to = max(from, 0), min(to, lineLen); from < to {
				marks = append(marks, mk.at(from, to))
			}
		}
		out = append(out, Line{First: l.First, Last: l.Last, Marks: marks})
	}
	return out
}

func (mk Mark) at(from, to int) Mark { return Mark{From: from, To: to, Kind: mk.Kind} }
