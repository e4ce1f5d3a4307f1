package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

type fileEntry struct {
	RelPath   string `json:"rel_path"`
	DocType   string `json:"doc_type"`
	SizeBytes int64  `json:"size_bytes"`
	MtimeUnix int64  `json:"mtime_unix"`
	Status    string `json:"status"`
	Deleted   bool   `json:"deleted"`
	Reason    string `json:"reason,omitempty"`
	Rule      string `json:"rule,omitempty"`
}

type listResult struct {
	Limit      int         `json:"limit"`
	Offset     int         `json:"offset"`
	Total      int         `json:"total"`
	Files      []fileEntry `json:"files"`
	NextCursor string      `json:"next_cursor,omitempty"`
}

const listTool = "dir2mcp.list_files"

var listFilesParams = []param{
	str("path_prefix", "only files whose rel_path starts with this"),
	str("glob", "gitignore-style glob on rel_path, e.g. **/*.md"),
	integer("limit", "page size", 1, 5000).withDefault(200),
	atLeast("offset", "files to skip (paging; or use cursor)", 0, maxLine).withDefault(0),
	boolean("excluded", "list instead the files kept from clients for security (secret patterns, path excludes), each with the rule that excluded it (never its content)").withDefault(false),
	cursorParam,
}

// listArgs are the arguments a list_files cursor is bound to.
type listArgs struct {
	Prefix   string `json:"path_prefix"`
	Glob     string `json:"glob"`
	Excluded bool   `json:"excluded,omitempty"`
}

// listFiles lists the documents the caller may see in rel_path order,
// within its scope. Files excluded for security, by indexing or by the
// current rules, are not even named (SPEC §17); excluded=true lists only
// them, each with its rule, for the owner to spot a false positive.
func (s *Server) listFiles(ctx context.Context, a *args) (toolOut, error) {
	la := listArgs{Glob: a.str("glob"), Excluded: a.boolean("excluded")}
	var err error
	if la.Prefix, err = relPrefix(a.str("path_prefix")); err != nil {
		return toolOut{}, err
	}
	limit, offset := a.integer("limit"), a.integer("offset")
	var pos listPos
	resumed, err := s.resume(ctx, listTool, a, la, &pos)
	if err != nil {
		return toolOut{}, err
	}
	if resumed && a.has("offset") {
		return toolOut{}, errcode.FieldError(errcode.InvalidField, "offset", "offset cannot be combined with cursor: the cursor already says where the page starts")
	}
	keep, err := docFilter(ctx, la.Prefix, la.Glob, "glob", nil)
	if err != nil {
		return toolOut{}, err
	}
	q := store.DocQuery{PathPrefix: la.Prefix, Within: corpus.ScopeFrom(ctx).Paths(), MaxSize: -1, HideCodes: corpus.HiddenCodes}
	if la.Excluded {
		q.HideCodes = nil
	}
	docs, err := s.Store.Documents(ctx, q, func(d store.Doc) bool {
		return keep(d.RelPath, d.DocType) && s.access.Listable(d.RelPath, d.ErrorCode) != la.Excluded
	}, 0)
	if err != nil {
		return toolOut{}, err
	}
	if resumed {
		offset = afterKey(docs, func(d store.Doc) bool { return d.RelPath > pos.Path })
	}
	page := docs[min(offset, len(docs)):min(len(docs), offset+limit)]
	res := listResult{Limit: limit, Offset: offset, Total: len(docs), Files: make([]fileEntry, 0, len(page))}
	var b strings.Builder
	what := "file(s) match"
	if la.Excluded {
		what = "file(s) excluded for security"
	}
	fmt.Fprintf(&b, "%d %s; showing %d from offset %d:\n", res.Total, what, len(page), offset)
	for _, d := range page {
		e := entryOf(d)
		if la.Excluded {
			e.Rule = s.access.Rule(d.RelPath, d.Error, s.Config.Security.SecretPatterns)
		}
		res.Files = append(res.Files, e)
		line := fmt.Sprintf("%s  %s  %d B", d.RelPath, d.DocType, d.SizeBytes)
		switch {
		case e.Rule != "":
			line += "  [excluded by " + e.Rule + "]"
		case e.Reason != "":
			line += "  [" + d.Status + ": " + e.Reason + "]"
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if offset+len(page) < res.Total && len(page) > 0 {
		res.NextCursor = s.cursorAt(ctx, listTool, la, listPos{Path: page[len(page)-1].RelPath})
		fmt.Fprintf(&b, "… more: call again with cursor=%s (or offset=%d)", res.NextCursor, offset+len(page))
	}
	return toolOut{out: res, summary: strings.TrimRight(b.String(), "\n")}, nil
}

// entryOf describes a document in a listing.
func entryOf(d store.Doc) fileEntry {
	e := fileEntry{RelPath: d.RelPath, DocType: d.DocType, SizeBytes: d.SizeBytes, MtimeUnix: d.MtimeUnix,
		Status: d.Status, Deleted: d.Deleted}
	if d.Status != "ok" {
		e.Reason = strings.TrimPrefix(strings.TrimSpace(d.ErrorCode+": "+d.Error), ": ")
	}
	return e
}
