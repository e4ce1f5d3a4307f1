package corpus

import (
	"context"
	"slices"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Scope narrows what one caller may reach: the tools it may call and the
// rel_path prefixes it may read or see listed. A nil Scope, or an empty
// list, allows everything. A scope travels with the request context
// (WithScope); Access.Open refuses paths outside it, and every tool that
// names files (lists, search hits, grep matches) drops those Allowed says
// no to.
type Scope struct {
	// Label names the credential the scope came from (a token's label),
	// for the audit log; never a secret.
	Label string
	// Tools are the tool names allowed (e.g. "dir2mcp.search"); nil = all.
	Tools []string
	// PathPrefixes are the rel_path prefixes allowed, each a directory
	// ("docs/") or a file ("README.md"); nil = all.
	PathPrefixes []string
}

type scopeKey struct{}

// WithScope returns ctx carrying s.
func WithScope(ctx context.Context, s *Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// ScopeFrom returns the scope ctx carries (nil: unrestricted).
func ScopeFrom(ctx context.Context) *Scope {
	s, _ := ctx.Value(scopeKey{}).(*Scope)
	return s
}

// AllowsTool reports whether s lets its holder call tool.
func (s *Scope) AllowsTool(tool string) bool {
	return s == nil || len(s.Tools) == 0 || slices.Contains(s.Tools, tool)
}

// AllowsPath reports whether s lets its holder read or see rel (an archive
// member is judged by its full rel_path and by its archive's).
func (s *Scope) AllowsPath(rel string) bool {
	return store.Within(rel, s.Paths())
}

// Paths returns the path prefixes of s (nil: all).
func (s *Scope) Paths() []string {
	if s == nil {
		return nil
	}
	return s.PathPrefixes
}

// Allowed reports whether the caller ctx carries may see rel.
func Allowed(ctx context.Context, rel string) bool { return ScopeFrom(ctx).AllowsPath(rel) }

// checkScope is OUT_OF_SCOPE when ctx's scope does not cover rel.
func checkScope(ctx context.Context, rel string) error {
	if s := ScopeFrom(ctx); !s.AllowsPath(rel) {
		return errcode.FieldError(errcode.OutOfScope, "rel_path", "%s is outside the paths this credential may read (%s)", rel, strings.Join(s.PathPrefixes, ", "))
	}
	return nil
}
