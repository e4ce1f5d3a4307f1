package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

const findTool = "dir2mcp.find"

// Sort keys and orders of find.
var (
	findSorts  = []string{"path", "size", "mtime"}
	findOrders = []string{"asc", "desc"}
	// findStatuses filters on indexing status ("any" = all).
	findStatuses = []string{"any", record.StatusOK, record.StatusSkipped, record.StatusError}
	// findDocTypes are every document type, binary files included.
	findDocTypes = append(slices.Clone(retrieve.DocTypes), record.DocBinaryIgnored)
)

const maxFindLimit = 1000

var findParams = []param{
	str("glob", "gitignore-style glob on rel_path, e.g. **/*.go or docs/**"),
	str("path_prefix", "only files whose rel_path starts with this"),
	strList("doc_types", "only these document types", findDocTypes...),
	str("mime", `media type, exact ("text/markdown") or a family ("image/*")`),
	atLeast("min_size", "smallest size in bytes (inclusive)", 0, maxMs),
	atLeast("max_size", "largest size in bytes (inclusive)", 0, maxMs),
	str("modified_since", "only files modified at or after this time (RFC 3339, or a date YYYY-MM-DD in UTC)"),
	str("modified_before", "only files modified before this time (RFC 3339, or a date YYYY-MM-DD in UTC)"),
	oneOf("status", "indexing status: any, ok (indexed), skipped or error", findStatuses, "any"),
	oneOf("sort", "sort key", findSorts, "path"),
	oneOf("order", "sort order", findOrders, "asc"),
	integer("limit", "page size; more with next_cursor", 1, maxFindLimit).withDefault(100),
	cursorParam,
}

// findArgs are the arguments a find cursor is bound to.
type findArgs struct {
	Glob     string   `json:"glob"`
	Prefix   string   `json:"path_prefix"`
	DocTypes []string `json:"doc_types"`
	MIME     string   `json:"mime"`
	MinSize  int64    `json:"min_size"`
	MaxSize  int64    `json:"max_size"`
	Since    int64    `json:"since"`
	Before   int64    `json:"before"`
	Status   string   `json:"status"`
	Sort     string   `json:"sort"`
	Order    string   `json:"order"`
}

// listPos is a keyset position in a sorted file list: the sort key and
// rel_path of the last entry returned.
type listPos struct {
	Key  int64  `json:"k,omitempty"`
	Path string `json:"p"`
}

type findEntry struct {
	fileEntry
	MIMEType string `json:"mime_type"`
}

type findResult struct {
	Total      int         `json:"total"`
	Files      []findEntry `json:"files"`
	NextCursor string      `json:"next_cursor,omitempty"`
}

func (s *Server) find(ctx context.Context, a *args) (toolOut, error) {
	fa := findArgs{Glob: a.str("glob"), DocTypes: a.strings("doc_types"), MIME: strings.TrimSpace(a.str("mime")),
		MinSize: int64(a.integer("min_size")), MaxSize: -1, Status: a.str("status"), Sort: a.str("sort"), Order: a.str("order")}
	var err error
	if fa.Prefix, err = relPrefix(a.str("path_prefix")); err != nil {
		return toolOut{}, err
	}
	if a.has("max_size") {
		fa.MaxSize = int64(a.integer("max_size"))
		if fa.MaxSize < fa.MinSize {
			return toolOut{}, errcode.FieldError(errcode.InvalidRange, "max_size", "max_size %d is below min_size %d", fa.MaxSize, fa.MinSize)
		}
	}
	if fa.Since, err = timeArg(a, "modified_since"); err != nil {
		return toolOut{}, err
	}
	if fa.Before, err = timeArg(a, "modified_before"); err != nil {
		return toolOut{}, err
	}
	if fa.MIME != "" && !strings.Contains(fa.MIME, "/") {
		return toolOut{}, errcode.FieldError(errcode.InvalidField, "mime", `mime %q is not a media type like "text/markdown" or "image/*"`, fa.MIME)
	}
	var pos listPos
	resumed, err := s.resume(ctx, findTool, a, fa, &pos)
	if err != nil {
		return toolOut{}, err
	}
	keep, err := docFilter(ctx, fa.Prefix, fa.Glob, "glob", nil)
	if err != nil {
		return toolOut{}, err
	}
	q := store.DocQuery{PathPrefix: fa.Prefix, Within: corpus.ScopeFrom(ctx).Paths(), DocTypes: fa.DocTypes, MinSize: fa.MinSize,
		MaxSize: fa.MaxSize, ModifiedSince: fa.Since, ModifiedBefore: fa.Before, HideCodes: corpus.HiddenCodes}
	docs, err := s.Store.Documents(ctx, q, func(d store.Doc) bool {
		return keep(d.RelPath, d.DocType) && s.access.Listable(d.RelPath, d.ErrorCode) &&
			(fa.Status == "any" || d.Status == fa.Status) && mimeMatches(fa.MIME, mimeType(d.RelPath, d.DocType))
	}, 0)
	if err != nil {
		return toolOut{}, err
	}
	key := sortKey(fa.Sort)
	cmpDocs := func(x, y store.Doc) int {
		c := cmp.Or(cmp.Compare(key(x), key(y)), strings.Compare(x.RelPath, y.RelPath))
		if fa.Order == "desc" {
			return -c
		}
		return c
	}
	slices.SortFunc(docs, cmpDocs)
	start := 0
	if resumed {
		last := store.Doc{RelPath: pos.Path}
		start = afterKey(docs, func(d store.Doc) bool { return cmpDocs(d, withKey(last, fa.Sort, pos.Key)) > 0 })
	}
	page := docs[start:min(len(docs), start+a.integer("limit"))]
	res := findResult{Total: len(docs), Files: make([]findEntry, 0, len(page))}
	var b strings.Builder
	fmt.Fprintf(&b, "%d file(s) match; showing %d:\n", len(docs), len(page))
	for _, d := range page {
		e := findEntry{fileEntry: entryOf(d), MIMEType: mimeType(d.RelPath, d.DocType)}
		res.Files = append(res.Files, e)
		fmt.Fprintf(&b, "%s  %s  %d B  %s\n", d.RelPath, e.MIMEType, d.SizeBytes, time.Unix(d.MtimeUnix, 0).UTC().Format(time.RFC3339))
	}
	if start+len(page) < len(docs) {
		last := page[len(page)-1]
		res.NextCursor = s.cursorAt(ctx, findTool, fa, listPos{Key: key(last), Path: last.RelPath})
		fmt.Fprintf(&b, "… more: call again with cursor=%s", res.NextCursor)
	}
	return toolOut{out: res, summary: strings.TrimRight(b.String(), "\n")}, nil
}

// sortKey returns the integer sort key of a document for find's sort.
func sortKey(sort string) func(store.Doc) int64 {
	switch sort {
	case "size":
		return func(d store.Doc) int64 { return d.SizeBytes }
	case "mtime":
		return func(d store.Doc) int64 { return d.MtimeUnix }
	}
	return func(store.Doc) int64 { return 0 }
}

func withKey(d store.Doc, sort string, k int64) store.Doc {
	switch sort {
	case "size":
		d.SizeBytes = k
	case "mtime":
		d.MtimeUnix = k
	}
	return d
}

// afterKey is the index of the first of sorted docs for which after holds.
func afterKey(docs []store.Doc, after func(store.Doc) bool) int {
	i, _ := slices.BinarySearchFunc(docs, true, func(d store.Doc, _ bool) int {
		if after(d) {
			return 1
		}
		return -1
	})
	return i
}

// mimeMatches reports whether a media type matches want: exact, or a
// family "type/*" ("" matches all).
func mimeMatches(want, got string) bool {
	switch {
	case want == "":
		return true
	case strings.HasSuffix(want, "/*"):
		return strings.HasPrefix(got, strings.TrimSuffix(want, "*"))
	}
	return strings.EqualFold(want, got) || strings.HasPrefix(got, want+";")
}

// timeArg reads an RFC 3339 time or a YYYY-MM-DD date (UTC) as unix
// seconds (0 when absent).
func timeArg(a *args, name string) (int64, error) {
	v := strings.TrimSpace(a.str(name))
	if v == "" {
		return 0, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.Unix(), nil
		}
	}
	return 0, errcode.FieldError(errcode.InvalidField, name, "%s %q is not an RFC 3339 time (2025-01-31T12:00:00Z) or a date (2025-01-31)", name, v)
}
