package grep

import (
	"context"
	"strings"
)

// Position is where a search continues: a document (by rel_path) and a
// byte offset in its text. Positions are keysets: they stay meaningful as
// documents come and go.
type Position struct {
	Path string `json:"p"`
	Off  int    `json:"o,omitempty"`
}

// Match is a matching line.
type Match struct {
	Doc *Doc
	// Line is the 0-based body line, Loc where it is cited.
	Line int
	Loc  Location
	// Start is the line's byte offset in the text.
	Start int
	Text  string
	// Cols are byte ranges of matches within Text (at most MaxCols).
	Cols [][2]int
	// Cut: the line was too long for the pattern and was matched in pieces.
	Cut bool
	// Before and After are up to Query.Context lines around the match,
	// cited at BeforeLocs and AfterLocs.
	Before, After         []string
	BeforeLocs, AfterLocs []Location
}

// Query is one search.
type Query struct {
	Matcher *Matcher
	// Keep selects the documents to search (nil = all).
	Keep func(*Doc) bool
	// From continues a previous search ("" Path = from the start).
	From Position
	// Context is the number of lines to return around each match.
	Context int
	// Accept receives each match in order; false stops the search before
	// it (the result continues at it).
	Accept func(Match) bool
	// Interrupt is asked between bounded units of work; true stops the
	// search where it is (a time budget).
	Interrupt func() bool
}

// Result reports how a search ended.
type Result struct {
	// Next is where to continue, nil when every document was searched.
	Next *Position
	// Interrupted reports that Interrupt stopped the search.
	Interrupted bool
	// Candidates is the number of documents that passed Keep; Scanned the
	// number of those whose text was scanned (the rest cannot match).
	Candidates, Scanned int
}

// Search runs q over the current documents, refreshing the Index first
// when the Source changed.
func (ix *Index) Search(ctx context.Context, q Query) (Result, error) {
	snap, err := ix.refresh(ctx)
	if err != nil {
		return Result{}, err
	}
	var res Result
	interrupted := func() bool {
		if ctx.Err() != nil || (q.Interrupt != nil && q.Interrupt()) {
			res.Interrupted = true
			return true
		}
		return false
	}
	for _, d := range snap.docs {
		if d.RelPath < q.From.Path || q.Keep != nil && !q.Keep(d) {
			continue
		}
		res.Candidates++
		if !d.cold && !q.Matcher.filter.holds(d.tris) {
			continue
		}
		from := 0
		if d.RelPath == q.From.Path {
			from = q.From.Off
		}
		t := &d.text
		if d.cold {
			if t, err = ix.loadCold(ctx, d); err != nil {
				return res, err
			}
			if t == nil {
				continue
			}
		}
		if from > len(t.Body) {
			continue
		}
		res.Scanned++
		resume, done := ix.scanDoc(d, t, from, q, interrupted)
		if !done {
			res.Next = &Position{Path: d.RelPath, Off: resume}
			return res, ctx.Err()
		}
		if interrupted() {
			res.Next = &Position{Path: d.RelPath + "\x00"} // right after this document
			return res, ctx.Err()
		}
	}
	return res, nil
}

// scanDoc reports the matches of one document from byte from.
func (ix *Index) scanDoc(d *Doc, t *Text, from int, q Query, interrupted func() bool) (int, bool) {
	body := t.Body
	counted := strings.LastIndexByte(body[:from], '\n') + 1 // the line start at or before from
	line := strings.Count(body[:counted], "\n")
	return q.Matcher.scan(body, from, func(start, end int, cols [][2]int, cut bool) bool {
		line += strings.Count(body[counted:start], "\n")
		counted = start
		m := Match{Doc: d, Line: line, Loc: t.locate(line), Start: start, Text: body[start:end], Cols: cols, Cut: cut}
		if q.Context > 0 {
			m.Before, m.After = around(body, start, end, q.Context)
			for i := range m.Before {
				m.BeforeLocs = append(m.BeforeLocs, t.locate(line-len(m.Before)+i))
			}
			for i := range m.After {
				m.AfterLocs = append(m.AfterLocs, t.locate(line+1+i))
			}
		}
		return q.Accept(m)
	}, interrupted)
}

// loadCold reads a cold document's text (nil if it cannot be read).
func (ix *Index) loadCold(ctx context.Context, d *Doc) (*Text, error) {
	var out *Text
	err := ix.src.Load(ctx, []Ref{d.Ref}, func(_ Ref, t Text) error {
		out = &t
		return nil
	})
	return out, err
}

// around returns up to n lines before the line [start, end) and after it.
func around(body string, start, end, n int) (before, after []string) {
	for i, s := 0, start; i < n && s > 0; i++ {
		prev := strings.LastIndexByte(body[:s-1], '\n') + 1
		before = append(before, body[prev:s-1])
		s = prev
	}
	for l, r := 0, len(before)-1; l < r; l, r = l+1, r-1 {
		before[l], before[r] = before[r], before[l]
	}
	for i, e := 0, end; i < n && e < len(body); i++ {
		next := strings.IndexByte(body[e+1:], '\n')
		if next < 0 {
			next = len(body) - e - 1
		}
		if e+1 == len(body) {
			break
		}
		after = append(after, body[e+1:e+1+next])
		e = e + 1 + next
	}
	return before, after
}
