package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
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
	Limit  int         `json:"limit"`
	Offset int         `json:"offset"`
	Total  int         `json:"total"`
	Files  []fileEntry `json:"files"`
}

var listFilesParams = []param{
	str("path_prefix", "only files whose rel_path starts with this"),
	str("glob", "gitignore-style glob on rel_path, e.g. **/*.md"),
	integer("limit", "page size", 1, 5000).withDefault(200),
	atLeast("offset", "files to skip (paging)", 0, maxLine).withDefault(0),
	boolean("excluded", "list instead the files kept out of the index for security (secret patterns, path excludes), each with the rule that excluded it (never its content)").withDefault(false),
}

func (s *Server) listFiles(ctx context.Context, a *args) (toolOut, error) {
	prefix, glob, limit, offset := a.str("path_prefix"), a.str("glob"), a.integer("limit"), a.integer("offset")
	// Files excluded for security are not named in the listing (SPEC §17);
	// excluded=true lists them, by rule, for the owner to spot a false
	// positive. Either way only files within the caller's scope.
	f := store.DocFilter{PathPrefix: strings.TrimPrefix(prefix, "./"), Within: corpus.ScopeFrom(ctx).Paths(),
		HideCodes: corpus.HiddenCodes}
	excluded := a.boolean("excluded")
	if excluded {
		f.HideCodes, f.OnlyCodes = nil, corpus.HiddenCodes
	}
	if glob != "" {
		p, err := exclude.ParsePattern(glob)
		if err != nil || p.Negate {
			return toolOut{}, errcode.FieldError(errcode.InvalidField, "glob", "glob %q is not a valid pattern", glob)
		}
		f.Match = func(rel string) bool { return p.Match(rel, false) }
	}
	docs, total, err := s.Store.ListDocuments(ctx, f, limit, offset)
	if err != nil {
		return toolOut{}, err
	}
	res := listResult{Limit: limit, Offset: offset, Total: total, Files: make([]fileEntry, 0, len(docs))}
	var b strings.Builder
	what := "file(s) match"
	if excluded {
		what = "file(s) excluded from the index for security"
	}
	fmt.Fprintf(&b, "%d %s; showing %d from offset %d:\n", total, what, len(docs), offset)
	for _, d := range docs {
		e := fileEntry{RelPath: d.RelPath, DocType: d.DocType, SizeBytes: d.SizeBytes, MtimeUnix: d.MtimeUnix,
			Status: d.Status, Deleted: d.Deleted}
		if d.Status != "ok" {
			e.Reason = strings.TrimPrefix(strings.TrimSpace(d.ErrorCode+": "+d.Error), ": ")
		}
		if excluded {
			e.Rule = corpus.ExclusionRule(d.Error, s.Config.Security.SecretPatterns)
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
	if offset+len(docs) < total {
		fmt.Fprintf(&b, "… more: call again with offset=%d", offset+len(docs))
	}
	return toolOut{out: res, summary: strings.TrimRight(b.String(), "\n")}, nil
}
