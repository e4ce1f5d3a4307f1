// Package chunk splits a representation's text into the chunks that are
// embedded and cited (SPEC §7.5), each with a 1-based inclusive line span.
//
// A "line" is a "\n"-terminated segment of the text; a final segment without
// a trailing "\n" is a line too, and a trailing "\n" does not start another.
// Text is expected to be normalised (see lib/extract): "\r" is content here.
//
// Chunking is deterministic and local: each chunk is decided by a window
// that starts where the previous chunk decided and reaches one line past
// the chunk's end plus at most MaxLines/4 lines (Code) or MaxChars/2 bytes
// (Text). An edit leaves byte-identical, with the same spans, all leading
// chunks whose windows end before the edited line (Text may also change
// the chunk before the last when the remainder after it shrinks below
// MinChars and is merged into it). Unchanged chunks keep their text_hash
// and are not re-embedded (SPEC §7.6).
//
// Every non-blank line is covered by at least one piece; pieces never start
// or end with a blank line, and blank-only text yields no pieces. A piece's
// Text is exactly its span's lines joined by "\n", except for a line longer
// than the character cap, which is split into several pieces that all cite
// that line (Col says where in the line a piece starts).
//
// That holds for the chunked text. When it is a representation whose lines
// are not the file's (HTML rendered as text), Remap turns spans into file
// lines and returns the map of each piece's own lines: a piece's Text then
// came from exactly the source lines of its Span, and its map's Quote(Text)
// is that text as it reads in the file.
package chunk

import "github.com/dir2mcp/dir2mcp/lib/record"

// Piece is one chunk of a representation.
type Piece struct {
	Text string
	// Span is a lines span (record.SpanLines) into the chunked text, or into
	// the source after Remap.
	Span record.Span
	// Ordinal is the piece's 0-based position in the representation.
	Ordinal int
	// Col is the byte offset of Text in its first line: 0 but for the
	// later parts of a split line.
	Col int
}

// Sizes named Chars are UTF-8 bytes; a cut never splits a rune.

// CodeOptions configures Code. Zero fields take the defaults of
// DefaultCodeOptions; a negative OverlapLines means no overlap.
type CodeOptions struct {
	MaxLines     int // lines per chunk
	OverlapLines int // lines repeated from the end of the previous chunk
	MaxChars     int // hard cap on a chunk's bytes
}

// TextOptions configures Text. Zero fields take the defaults of
// DefaultTextOptions; a negative OverlapChars or MinChars means none.
type TextOptions struct {
	MaxChars     int // cap on a chunk's bytes, but a merged tail adds < MinChars
	OverlapChars int // at most this many bytes of whole lines are repeated
	MinChars     int // a trailing remainder shorter than this is merged
}

// DefaultCodeOptions returns the code chunking defaults: 200 lines with 30
// lines of overlap, at most 6000 bytes.
func DefaultCodeOptions() CodeOptions {
	return CodeOptions{MaxLines: 200, OverlapLines: 30, MaxChars: 6000}
}

// DefaultTextOptions returns the text chunking defaults: 2500 bytes with
// 250 bytes of overlap and a 200-byte minimum.
func DefaultTextOptions() TextOptions {
	return TextOptions{MaxChars: 2500, OverlapChars: 250, MinChars: 200}
}

func (o CodeOptions) normalized() CodeOptions {
	d := DefaultCodeOptions()
	if o.MaxLines <= 0 {
		o.MaxLines = d.MaxLines
	}
	if o.MaxChars <= 0 {
		o.MaxChars = d.MaxChars
	}
	switch {
	case o.OverlapLines == 0:
		o.OverlapLines = min(d.OverlapLines, o.MaxLines/2)
	case o.OverlapLines < 0:
		o.OverlapLines = 0
	}
	o.OverlapLines = min(o.OverlapLines, o.MaxLines/2)
	return o
}

func (o TextOptions) normalized() TextOptions {
	d := DefaultTextOptions()
	if o.MaxChars <= 0 {
		o.MaxChars = d.MaxChars
	}
	switch {
	case o.OverlapChars == 0:
		o.OverlapChars = min(d.OverlapChars, o.MaxChars/2)
	case o.OverlapChars < 0:
		o.OverlapChars = 0
	}
	o.OverlapChars = min(o.OverlapChars, o.MaxChars/2)
	switch {
	case o.MinChars == 0:
		o.MinChars = min(d.MinChars, o.MaxChars/2)
	case o.MinChars < 0:
		o.MinChars = 0
	}
	return o
}
