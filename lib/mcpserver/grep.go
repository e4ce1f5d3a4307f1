package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/grep"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

const grepTool = "dir2mcp.grep"

// grepSlots bounds the grep scans running at once.
var grepSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// Limits of grep results.
const (
	// grepTimeBudget bounds the scanning of one call; past it the result
	// is cut with a cursor to continue.
	grepTimeBudget = 5 * time.Second
	// maxLineChars bounds a returned line (and context line): a longer one
	// is clipped around its first match.
	maxLineChars = 400
	maxContext   = 10
	maxMatches   = 1000
)

// Why a grep result was cut.
const (
	cutMaxMatches = "max_matches"
	cutMaxTokens  = "max_tokens"
	cutTime       = "time_budget"
)

var grepParams = []param{
	str("pattern", "what to find: an RE2 regular expression (Go syntax), or a fixed string with literal=true; matched within each line").need(),
	boolean("literal", "take pattern as a fixed string, not a regular expression").withDefault(false),
	oneOf("case", "sensitive, insensitive, or smart (insensitive unless the pattern has an upper-case letter)", grep.CaseModes, grep.CaseSensitive),
	str("path_prefix", "only files whose rel_path starts with this"),
	str("glob", "gitignore-style glob on rel_path, e.g. **/*.go"),
	strList("doc_types", "only these document types", grep.DocTypes...),
	integer("context", "lines to return before and after each matching line", 0, maxContext).withDefault(0),
	integer("max_matches", "matching lines to return; more are reached with next_cursor", 1, maxMatches).withDefault(100),
	maxTokensParam,
	cursorParam,
}

// grepArgs are the arguments a grep cursor is bound to.
type grepArgs struct {
	Pattern  string   `json:"pattern"`
	Literal  bool     `json:"literal"`
	Case     string   `json:"case"`
	Prefix   string   `json:"path_prefix"`
	Glob     string   `json:"glob"`
	DocTypes []string `json:"doc_types"`
	Context  int      `json:"context"`
}

type grepMatch struct {
	RelPath string       `json:"rel_path"`
	DocType string       `json:"doc_type"`
	Line    int          `json:"line,omitempty"`
	Page    int          `json:"page,omitempty"`
	Span    *record.Span `json:"span,omitempty"`
	// Column is the 1-based byte column of the first match in the line.
	Column int    `json:"column"`
	Match  string `json:"match"`
	Text   string `json:"text"`
	// Clipped: the line was longer than maxLineChars and Text is a part.
	Clipped bool `json:"clipped,omitempty"`
	// Cut: the line was too long for the pattern to match whole; a match
	// across a piece boundary may be missing.
	Cut    bool     `json:"cut,omitempty"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
	// where the context lines are, for the text summary
	beforeAt, afterAt []grep.Location
}

type grepResult struct {
	Pattern          string      `json:"pattern"`
	Matches          []grepMatch `json:"matches"`
	FilesMatched     int         `json:"files_matched"`
	FilesSearched    int         `json:"files_searched"`
	Truncated        bool        `json:"truncated"`
	TruncatedReason  string      `json:"truncated_reason,omitempty"`
	NextCursor       string      `json:"next_cursor,omitempty"`
	IndexingComplete bool        `json:"indexing_complete"`
}

// newGrepIndex is the grep index over the store (nil without one).
func (s *Server) newGrepIndex() *grep.Index {
	if s.Store == nil {
		return nil
	}
	return grep.NewIndex(&grep.StoreSource{Store: s.Store, Access: s.access, Config: s.Config})
}

func (s *Server) grep(ctx context.Context, a *args) (toolOut, error) {
	ga := grepArgs{Pattern: a.str("pattern"), Literal: a.boolean("literal"), Case: a.str("case"),
		Glob: a.str("glob"), DocTypes: a.strings("doc_types"), Context: a.integer("context")}
	var err error
	if ga.Prefix, err = relPrefix(a.str("path_prefix")); err != nil {
		return toolOut{}, err
	}
	m, err := grep.Compile(grep.Pattern{Expr: ga.Pattern, Literal: ga.Literal, Case: ga.Case})
	if err != nil {
		return toolOut{}, err
	}
	keep, err := docFilter(ctx, ga.Prefix, ga.Glob, "glob", ga.DocTypes)
	if err != nil {
		return toolOut{}, err
	}
	var from grep.Position
	if _, err := s.resume(ctx, grepTool, a, ga, &from); err != nil {
		return toolOut{}, err
	}
	limit, budget := a.integer("max_matches"), a.integer("max_tokens")
	res := grepResult{Pattern: ga.Pattern, Matches: []grepMatch{}}
	files := []string{}
	used := 0
	deadline := time.Now().Add(grepTimeBudget)
	q := grep.Query{Matcher: m, From: from, Context: ga.Context,
		Keep:      func(d *grep.Doc) bool { return keep(d.RelPath, d.DocType) },
		Interrupt: func() bool { return time.Now().After(deadline) },
		Accept: func(x grep.Match) bool {
			if len(res.Matches) == limit {
				res.TruncatedReason = cutMaxMatches
				return false
			}
			gm := grepEntry(x)
			cost := gm.cost()
			if budget > 0 && used+cost > budget {
				if len(res.Matches) > 0 {
					res.TruncatedReason = cutMaxTokens
					return false
				}
				// The first line alone is over: without context, clipped.
				gm.Before, gm.After, gm.beforeAt, gm.afterAt = nil, nil, nil, nil
				if t, cut := clipTokens(gm.Text, budget-tokens(gm.RelPath)-matchOverhead); cut {
					gm.Text, gm.Clipped = t, true
				}
				cost = gm.cost()
			}
			used += cost
			if len(files) == 0 || files[len(files)-1] != gm.RelPath {
				files = append(files, gm.RelPath)
			}
			res.Matches = append(res.Matches, gm)
			return true
		}}
	if s.grepIndex == nil {
		return toolOut{}, errcode.New(errcode.IndexNotReady, "no index to search")
	}
	// One scan per CPU at a time: a costly pattern waits rather than
	// starving every other call.
	select {
	case grepSlots <- struct{}{}:
		defer func() { <-grepSlots }()
	case <-ctx.Done():
		return toolOut{}, ctx.Err()
	}
	deadline = time.Now().Add(grepTimeBudget)
	r, err := s.grepIndex.Search(ctx, q)
	if err != nil {
		return toolOut{}, err
	}
	if r.Interrupted {
		res.TruncatedReason = cutTime
	}
	res.FilesMatched, res.FilesSearched = len(files), r.Candidates
	if r.Next != nil {
		res.Truncated = true
		res.NextCursor = s.cursorAt(ctx, grepTool, ga, *r.Next)
	} else {
		res.TruncatedReason = ""
	}
	res.IndexingComplete = s.Engine == nil || s.Engine.Complete == nil || s.Engine.Complete()
	return toolOut{out: res, summary: grepSummary(res, limit), files: files}, nil
}

// matchOverhead is the estimated tokens of a match's fields besides its
// lines and path.
const matchOverhead = 8

// cost estimates the tokens of m in a result.
func (m grepMatch) cost() int {
	return tokens(m.Text) + tokens(strings.Join(m.Before, "\n")) + tokens(strings.Join(m.After, "\n")) + tokens(m.RelPath) + matchOverhead
}

// grepEntry shapes a match for the result: the line clipped around its
// first match, the citation of its position.
func grepEntry(x grep.Match) grepMatch {
	gm := grepMatch{RelPath: x.Doc.RelPath, DocType: x.Doc.DocType, Line: x.Loc.Line, Page: x.Loc.Page, Cut: x.Cut,
		beforeAt: x.BeforeLocs, afterAt: x.AfterLocs}
	if x.Loc.Span.Kind != "" {
		sp := x.Loc.Span
		gm.Span = &sp
	}
	first := x.Cols[0]
	gm.Column = first[0] + 1
	gm.Match = clipRunes(x.Text[first[0]:first[1]], maxLineChars)
	gm.Text, gm.Clipped = clipAround(x.Text, first[0], maxLineChars)
	for _, l := range x.Before {
		t, _ := clipAround(l, 0, maxLineChars)
		gm.Before = append(gm.Before, t)
	}
	for _, l := range x.After {
		t, _ := clipAround(l, 0, maxLineChars)
		gm.After = append(gm.After, t)
	}
	return gm
}

// clipAround returns at most n bytes of line around byte at, cut at rune
// boundaries.
func clipAround(line string, at, n int) (string, bool) {
	if len(line) <= n {
		return line, false
	}
	lo := max(0, at-n/4)
	hi := min(len(line), lo+n)
	for lo > 0 && !utf8.RuneStart(line[lo]) {
		lo--
	}
	for hi < len(line) && !utf8.RuneStart(line[hi]) {
		hi--
	}
	return line[lo:hi], true
}

func clipRunes(s string, n int) string {
	t, _ := clipAround(s, 0, n)
	return t
}

// relPrefix checks a path_prefix: relative to the root, no "..".
func relPrefix(p string) (string, error) {
	p = strings.TrimPrefix(strings.TrimSpace(p), "./")
	if strings.HasPrefix(p, "/") || strings.Contains("/"+p+"/", "/../") || strings.ContainsRune(p, 0) {
		return "", errcode.FieldError(errcode.PathOutsideRoot, "path_prefix", "path_prefix must be relative to the root, got %q", p)
	}
	return p, nil
}

// docFilter selects documents by path prefix, glob (gitignore syntax, on
// the field named globField) and type, within the caller's scope.
func docFilter(ctx context.Context, prefix, glob, globField string, types []string) (func(rel, docType string) bool, error) {
	var g *exclude.Pattern
	if glob != "" {
		p, err := exclude.ParsePattern(glob)
		if err == nil && p.Negate {
			err = errors.New(`"!" negation is not allowed here`)
		}
		if err != nil {
			return nil, errcode.FieldError(errcode.InvalidField, globField, "%s %.80q is not a valid glob: %v", globField, glob, err)
		}
		g = p
	}
	return func(rel, docType string) bool {
		if !strings.HasPrefix(rel, prefix) || g != nil && !g.Match(rel, false) || !corpus.Allowed(ctx, rel) {
			return false
		}
		if len(types) == 0 {
			return true
		}
		for _, t := range types {
			if t == docType {
				return true
			}
		}
		return false
	}, nil
}

// grepSummary is the text content: grep -n style lines.
func grepSummary(res grepResult, limit int) string {
	var b strings.Builder
	if len(res.Matches) == 0 {
		fmt.Fprintf(&b, "No line matches %q (%d files searched).", res.Pattern, res.FilesSearched)
	} else {
		fmt.Fprintf(&b, "%d matching line(s) in %d file(s) for %q (%d files searched):\n", len(res.Matches), res.FilesMatched, res.Pattern, res.FilesSearched)
	}
	// Context shared by nearby matches is printed once, and a matching
	// line only as a match, as grep does.
	where := func(m grepMatch) string {
		return grepWhere(m.RelPath, grep.Location{Line: m.Line, Page: m.Page, Span: spanOf(m.Span)})
	}
	matched, printed := map[string]bool{}, map[string]bool{}
	for _, m := range res.Matches {
		matched[where(m)] = true
	}
	context := func(at string, l string) {
		if !matched[at] && !printed[at] {
			printed[at] = true
			fmt.Fprintf(&b, "%s-  %s\n", at, l)
		}
	}
	for _, m := range res.Matches {
		for i, l := range m.Before {
			context(grepWhere(m.RelPath, m.beforeAt[i]), l)
		}
		fmt.Fprintf(&b, "%s:  %s\n", where(m), m.Text)
		for i, l := range m.After {
			context(grepWhere(m.RelPath, m.afterAt[i]), l)
		}
	}
	switch res.TruncatedReason {
	case cutMaxMatches:
		fmt.Fprintf(&b, "… truncated at max_matches=%d; more with cursor=%s", limit, res.NextCursor)
	case cutMaxTokens:
		fmt.Fprintf(&b, "… truncated at max_tokens; more with cursor=%s", res.NextCursor)
	case cutTime:
		fmt.Fprintf(&b, "… stopped after %s of searching; continue with cursor=%s", grepTimeBudget, res.NextCursor)
	}
	if !res.IndexingComplete {
		b.WriteString("\n(indexing is still running; files not indexed yet were not searched)")
	}
	return strings.TrimRight(b.String(), "\n")
}

// grepWhere is a line's position: path:line, path#p=N:line or the time
// citation.
func grepWhere(rel string, l grep.Location) string {
	switch {
	case l.Span.Kind == "":
		return rel
	case l.Span.Kind == record.SpanTime:
		return retrieve.Cite(rel, l.Span)
	case l.Page > 0:
		return fmt.Sprintf("%s#p=%d:%d", rel, l.Page, l.Line)
	}
	return fmt.Sprintf("%s:%d", rel, l.Line)
}

func spanOf(sp *record.Span) record.Span {
	if sp == nil {
		return record.Span{}
	}
	return *sp
}
