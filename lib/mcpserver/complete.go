package mcpserver

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxCompletions is the most values a completion returns (the MCP limit).
const maxCompletions = 100

// complete answers completion/complete from the index: the path variable
// of the file template and the rel_path arguments of prompts complete to
// file paths, path_prefix arguments to directories. Paths starting with the
// typed value come first, then paths containing it (case-insensitive).
// Anything else completes to no values. Only paths within the caller's
// scope are offered.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref, arg := req.Params.Ref, req.Params.Argument
	scope := corpus.ScopeFrom(ctx)
	var values []string
	total := 0
	switch {
	case ref.Type == "ref/resource" && ref.URI == fileTemplate.URITemplate && arg.Name == "path",
		ref.Type == "ref/prompt" && isPrompt(ref.Name) && arg.Name == "rel_path":
		values, total = s.completeFiles(arg.Value, scope)
	case ref.Type == "ref/prompt" && isPrompt(ref.Name) && arg.Name == "path_prefix":
		values, total = s.completeDirs(arg.Value, scope)
	}
	if values == nil {
		values = []string{}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{
		Values: values, Total: total, HasMore: total > len(values),
	}}, nil
}

func isPrompt(name string) bool {
	for _, p := range prompts {
		if p.prompt.Name == name {
			return true
		}
	}
	return false
}

func (s *Server) completeFiles(v string, scope *corpus.Scope) ([]string, int) {
	out, total := s.catalog.prefixed(v, scope, maxCompletions)
	if v == "" {
		return out, total
	}
	lv := strings.ToLower(v)
	more, n := s.catalog.paths(func(p string) bool {
		return !strings.HasPrefix(p, v) && strings.Contains(strings.ToLower(p), lv) && scope.AllowsPath(p)
	}, maxCompletions-len(out))
	return append(out, more...), total + n
}

// completeDirs lists the directories (with a trailing slash) of indexed
// files that start with v.
func (s *Server) completeDirs(v string, scope *corpus.Scope) ([]string, int) {
	files, _ := s.catalog.prefixed(v, scope, 1<<30)
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
			dir := d + "/"
			if strings.HasPrefix(dir, v) && !seen[dir] {
				seen[dir] = true
				out = append(out, dir)
			}
		}
	}
	total := len(out)
	slices.Sort(out)
	if len(out) > maxCompletions {
		out = out[:maxCompletions]
	}
	return out, total
}
