// Package corpus is the file-access policy of the served directory: which
// rel_paths a client may read or see listed, the checks on what a path
// resolves to (root confinement, the state directory, the config file,
// security.path_excludes), the exclusions the index learned from derived
// content (a secret in a PDF's text or in an archive member), and the
// secret-pattern check on everything returned (SPEC §15.4, §17). Every
// tool and resource that reads or names a file goes through an Access.
package corpus

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dir2mcp/dir2mcp/lib/archive"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Access reads documents of one root on behalf of clients.
type Access struct {
	Root *rootfs.Root
	// StateDir is the absolute state directory, never served.
	StateDir string
	Exclude  *exclude.Engine
	// Store is the index: what it knows about a document (its type, and
	// whether indexing excluded it).
	Store *store.Store
	// Archives caps reading an archive member.
	Archives archive.Limits
	// Redact masks credentials in exact reads (ReadRange) before the range
	// is cut; nil masks nothing. (Other reads are masked by their callers,
	// after extraction.)
	Redact *exclude.Redactor

	// MaxReads bounds the files read at once (0 = DefaultMaxReads); a read
	// beyond it waits for a slot while its context lives.
	MaxReads int

	slots      readSlots
	stateReal  atomic.Pointer[string] // StateDir with symlinks resolved, once it exists
	listable   sync.Map               // rel_path → bool: not excluded by path
	remembered atomic.Int64
}

// HiddenCodes are the document codes of files excluded for security:
// such files are never named to clients, not even in listings.
var HiddenCodes = []string{string(errcode.PathExcluded), string(errcode.SecretExcluded)}

// securityCodes are the document codes that mean "never show this".
var securityCodes = []string{string(errcode.SecretExcluded), string(errcode.PathExcluded), string(errcode.Forbidden)}

// Check runs a client path through root confinement and the exclusion
// engine: outside the root → PATH_OUTSIDE_ROOT; a missing file →
// FILE_NOT_FOUND; the state directory, the config file or an excluded
// path → FORBIDDEN, for the path as given and for what it resolves to (a
// symlink to .env is .env). It returns the canonical rel_path.
func (a *Access) Check(rel string) (string, error) {
	clean, err := a.Root.Name(rel)
	if err != nil {
		return "", err
	}
	abs, err := a.Root.Resolve(clean)
	if err != nil {
		return "", err
	}
	if a.inStateDir(abs) {
		return "", errcode.FieldError(errcode.Forbidden, "rel_path", "%s is inside the dir2mcp state directory and is never served", clean)
	}
	names := []string{clean}
	if target, ok := a.Root.Rel(abs); ok && target != clean {
		names = append(names, target)
	}
	for _, n := range names {
		if n == config.DefaultFileName {
			return "", errcode.FieldError(errcode.Forbidden, "rel_path", "%s is dir2mcp's config file, which may hold credentials, and is never served", clean)
		}
		if err := a.excluded(n, clean); err != nil {
			return "", err
		}
	}
	return clean, nil
}

// inStateDir reports whether abs, a path Root.Resolve returned (symlinks
// resolved), is the state directory or inside it. It is compared with the
// state directory as given and with symlinks resolved (the root may be
// reached through a link, so StateDir holds one), without case: on a
// case-insensitive file system ".DIR2MCP/secret.token" is the token.
func (a *Access) inStateDir(abs string) bool {
	real := a.stateReal.Load()
	if real == nil { // resolved once it exists
		if r, err := filepath.EvalSymlinks(a.StateDir); err == nil {
			real = &r
			a.stateReal.Store(real)
		} else {
			real = &a.StateDir
		}
	}
	for _, st := range []string{a.StateDir, *real} {
		if strings.EqualFold(abs, st) || (len(abs) > len(st) && strings.EqualFold(abs[:len(st)+1], st+string(filepath.Separator))) {
			return true
		}
	}
	return false
}

// excluded is FORBIDDEN, naming the document shown, when
// security.path_excludes matches p.
func (a *Access) excluded(p, shown string) error {
	if pat, ok := a.Exclude.PathExcluded(p); ok {
		return errcode.FieldError(errcode.Forbidden, "rel_path", "%s is excluded by security.path_excludes (%s)", shown, pat)
	}
	return nil
}

// CheckSecret refuses content that matches a secret pattern: the exclusion
// engine runs on everything a tool returns.
func (a *Access) CheckSecret(rel string, content []byte) error {
	if _, hit := a.Exclude.SecretMatch(content); hit {
		return errcode.FieldError(errcode.Forbidden, "rel_path", "%s matches a secret pattern (security.secret_patterns) and is not served", rel)
	}
	return nil
}

// Listable reports whether an indexed document may be named to clients
// (as a resource): not excluded at indexing time (errorCode) nor by the
// current path excludes. Listings ask it of every document, so the
// answer for a path is remembered (the excludes do not change while an
// Access lives).
func (a *Access) Listable(rel, errorCode string) bool {
	switch errcode.Code(errorCode) {
	case errcode.SecretExcluded, errcode.PathExcluded:
		return false
	}
	if a.Exclude == nil {
		return true
	}
	if v, ok := a.listable.Load(rel); ok {
		return v.(bool)
	}
	_, excluded := a.Exclude.PathExcluded(rel)
	if a.remembered.Add(1) <= maxRemembered {
		a.listable.Store(rel, !excluded)
	}
	return !excluded
}

// Rule names the rule that keeps an indexed document from clients: the
// one indexing recorded in reason (ExclusionRule), else the current path
// exclude matching rel; "" when none names it.
func (a *Access) Rule(rel, reason string, secretPatterns []string) string {
	if r := ExclusionRule(reason, secretPatterns); r != "" {
		return r
	}
	if a.Exclude != nil {
		if p, ok := a.Exclude.PathExcluded(rel); ok {
			return fmt.Sprintf("security.path_excludes %q", p)
		}
	}
	return ""
}

// maxRemembered bounds the paths Listable remembers.
const maxRemembered = 1 << 20
