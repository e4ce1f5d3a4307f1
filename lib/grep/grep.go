// Package grep finds the lines of the indexed documents that a literal or
// RE2 pattern matches, the way grep -rn does, from the index's own text
// rather than the files: code and text as stored (their lines are the
// files' lines), HTML as extracted (cited by the source line each line
// came from), PDFs and images by page, transcripts by time.
//
// An Index keeps every document's text in memory with the set of its
// trigrams, refreshed from a Source when the store's generation changes
// (only changed documents are reloaded). A pattern becomes a trigram query
// (pattern-derived, conservative: a document that can hold a match always
// passes), so most documents are never scanned; the rest are scanned with
// strings.Index for a literal, or with Go's RE2 engine (linear time, never
// backtracking) bounded by pattern size, work per call and an interruption
// check between bounded units of work.
package grep

import (
	"sort"

	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
)

// Text is a document's searchable text and how its lines are cited. A
// line is a "\n"-terminated segment of Body.
type Text struct {
	Body string
	// Map says which file lines each body line came from (HTML); nil
	// means body line i is file line i+1.
	Map srcmap.Map
	// PageStarts holds the first body line of each page (PDFs, images);
	// nil means the text has no pages.
	PageStarts []int
	// Times holds the time span of each body line (a transcript's
	// segments); nil means the text has no times.
	Times []record.Span
	// Uncited: the lines have no citable position (a transcript without
	// timestamps); matches cite the document only.
	Uncited bool
}

// Location is where a body line is cited.
type Location struct {
	// Line is the file line (text; for HTML the first source line of the
	// text), the line within the page (pages) or the segment number
	// (transcripts); 0 when uncited.
	Line int `json:"line,omitempty"`
	// Page is the 1-based page, for paged documents.
	Page int `json:"page,omitempty"`
	// Span is the citation span (SPEC §9.3); zero when uncited.
	Span record.Span `json:"span"`
}

// locate returns where body line i (0-based) of t is cited.
func (t *Text) locate(i int) Location {
	switch {
	case t.Uncited:
		return Location{}
	case t.Times != nil:
		if i < len(t.Times) {
			return Location{Line: i + 1, Span: t.Times[i]}
		}
		return Location{Line: i + 1}
	case t.PageStarts != nil:
		p := sort.SearchInts(t.PageStarts, i+1) - 1 // last page starting at or before i
		p = max(p, 0)
		return Location{Line: i - t.PageStarts[p] + 1, Page: p + 1, Span: record.Page(p + 1)}
	case t.Map != nil:
		sp := t.Map.Span(i+1, i+1)
		return Location{Line: sp.StartLine, Span: sp}
	}
	return Location{Line: i + 1, Span: record.Lines(i+1, i+1)}
}
