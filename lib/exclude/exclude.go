// Package exclude is dir2mcp's exclusion engine (SPEC §7.2, §17): path
// excludes (gitignore-style globs, security.path_excludes) and secret
// patterns (regular expressions over file contents, security.secret_patterns)
// that keep whole files out, and the Redactor (security.redact) that masks
// credentials inside the files that are served. The scanner consults it for
// every file it indexes and the MCP server again on every file access. It
// never returns or logs the text a secret pattern matched.
package exclude

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Engine holds compiled path excludes and secret patterns. It is immutable
// and safe for concurrent use. A nil *Engine behaves as Default().
type Engine struct {
	paths       Rules
	files       *fileIndex // paths, for files inside directories they let through
	negations   bool       // some path exclude is negated
	secrets     secretSet
	secretSrc   []string // the secret patterns as configured
	fingerprint string
}

// secretSet is the compiled secret patterns, built on first use: New
// compiles (validates) only the patterns that are not built-in defaults,
// which the tests compile, so an engine costs nothing until content is
// checked. Compiling the defaults takes ~30 ms of CPU, which a server
// restart or a no-op index run, reading no file, never needs.
type secretSet struct{ lazyCompiled[*secretRule] }

// get returns the rules in configuration order, compiling the rest.
func (s *secretSet) get() []*secretRule {
	return s.compiled(func(p string) *secretRule {
		r, err := compileSecret(p)
		if err != nil {
			panic(fmt.Sprintf("exclude: built-in secret pattern %q: %v", p, err))
		}
		return r
	})
}

// lazyCompiled is patterns compiled on first use. The constructor compiles
// (validates) those that are not built-in defaults into checked; compiled
// compiles the rest, built-ins that compile.
type lazyCompiled[T any] struct {
	patterns []string
	checked  map[int]T
	once     sync.Once
	items    []T
}

// compiled returns one item per pattern, in order, compiling the unchecked
// ones with mustCompile on the first call.
func (l *lazyCompiled[T]) compiled(mustCompile func(string) T) []T {
	l.once.Do(func() {
		for i, p := range l.patterns {
			x, ok := l.checked[i]
			if !ok {
				x = mustCompile(p)
			}
			l.items = append(l.items, x)
		}
		l.checked = nil
	})
	return l.items
}

// New compiles an engine. A pattern that does not compile is a
// *errcode.Error with code CONFIG_INVALID whose Field names the config key,
// e.g. "security.secret_patterns[2]".
func New(pathExcludes, secretPatterns []string) (*Engine, error) {
	e := &Engine{}
	for i, s := range pathExcludes {
		p, err := ParsePattern(s)
		if err != nil {
			return nil, errcode.FieldError(errcode.ConfigInvalid, fmt.Sprintf("security.path_excludes[%d]", i),
				"invalid path exclude %q: %v", s, err)
		}
		e.negations = e.negations || p.Negate
		e.paths = append(e.paths, p)
	}
	// Files are matched once their directories were (pathExcluded,
	// PathExcludedIn).
	e.files = newFileIndex(e.paths, !e.negations)
	e.secrets = secretSet{lazyCompiled[*secretRule]{patterns: secretPatterns, checked: map[int]*secretRule{}}}
	for i, s := range secretPatterns {
		if builtinPattern(s) {
			continue // compiled on first use
		}
		r, err := compileSecret(s)
		if err != nil {
			return nil, errcode.FieldError(errcode.ConfigInvalid, fmt.Sprintf("security.secret_patterns[%d]", i),
				"invalid secret pattern %q: %v", s, err)
		}
		e.secrets.checked[i] = r
	}
	e.secretSrc = secretPatterns
	h := sha256.New()
	fmt.Fprintf(h, "exclude/v1\x00")
	for _, s := range pathExcludes {
		fmt.Fprintf(h, "p%s\x00", s)
	}
	for _, s := range secretPatterns {
		fmt.Fprintf(h, "s%s\x00", s)
	}
	e.fingerprint = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return e, nil
}

var (
	defaultOnce   sync.Once
	defaultEngine *Engine
)

// Default returns the engine for DefaultPathExcludes and
// DefaultSecretPatterns.
func Default() *Engine {
	defaultOnce.Do(func() {
		e, err := New(DefaultPathExcludes, DefaultSecretPatterns)
		if err != nil {
			panic("exclude: defaults do not compile: " + err.Error())
		}
		defaultEngine = e
	})
	return defaultEngine
}

// Fingerprint identifies the configured patterns. It changes whenever a
// pattern (or this package's matching semantics) changes, so a caller that
// stores it can tell when earlier verdicts — in particular secret scans of
// files it will not reread — must be redone.
func (e *Engine) Fingerprint() string {
	if e == nil {
		return Default().fingerprint
	}
	return e.fingerprint
}

// PathExcluded reports whether relPath, slash-separated and relative to the
// root, is excluded, and by which pattern. A trailing "/" marks a directory.
// Every parent directory is checked as well, so "**/node_modules/**" excludes
// a/node_modules/b/c.js, and a directory is excluded when a pattern excludes
// everything inside it ("x/**") and no negated pattern could re-include a
// part. A leading "/" is ignored; a path that leaves the root ("../x") is
// always excluded. Matching ignores case as well: on a case-insensitive
// file system ".ENV" is the file ".env", so a path excluded in any case
// spelling is excluded (on a case-sensitive one this errs on the safe side).
func (e *Engine) PathExcluded(relPath string) (pattern string, ok bool) {
	if e == nil {
		e = Default()
	}
	return e.eitherCase(relPath, (*Engine).pathExcluded)
}

// eitherCase is match(relPath), or else match of relPath lower-cased.
func (e *Engine) eitherCase(relPath string, match func(*Engine, string) (string, bool)) (string, bool) {
	if pat, ok := match(e, relPath); ok {
		return pat, true
	}
	if lower := strings.ToLower(relPath); lower != relPath {
		return match(e, lower)
	}
	return "", false
}

// PathExcludedIn is PathExcluded for a file (relPath, slash-separated,
// clean, relative to the root) whose every parent directory was checked
// with PathExcluded and is not excluded, as a walk that does not enter
// excluded directories knows: only the file itself is matched, in both
// case spellings.
func (e *Engine) PathExcludedIn(relPath string) (pattern string, ok bool) {
	if e == nil {
		e = Default()
	}
	if len(e.paths) == 0 {
		return "", false
	}
	return e.eitherCase(relPath, (*Engine).fileExcluded)
}

// fileExcluded is e.paths.Excluded(relPath, false).
func (e *Engine) fileExcluded(relPath string) (string, bool) {
	if p := e.files.decide(e.paths, relPath); p != nil && !p.Negate {
		return p.String(), true
	}
	return "", false
}

// DirExcludedIn is PathExcluded(relDir + "/") for a directory whose every
// parent directory was checked with PathExcluded and is not excluded.
func (e *Engine) DirExcludedIn(relDir string) (pattern string, ok bool) {
	if e == nil {
		e = Default()
	}
	if len(e.paths) == 0 {
		return "", false
	}
	return e.eitherCase(relDir, (*Engine).dirExcluded)
}

func (e *Engine) pathExcluded(relPath string) (pattern string, ok bool) {
	isDir := strings.HasSuffix(relPath, "/")
	p := path.Clean("/" + relPath)[1:] // rooted clean: no "..", no leading "/"
	if c := path.Clean(relPath); c == ".." || strings.HasPrefix(c, "../") {
		return "..", true
	}
	if p == "" {
		return "", false
	}
	if len(e.paths) == 0 {
		return "", false
	}
	// Parent directories first: an excluded parent cannot be re-included.
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		if pat, ok := e.dirExcluded(p[:i]); ok {
			return pat, true
		}
	}
	if isDir {
		return e.dirExcluded(p)
	}
	return e.fileExcluded(p)
}

func (e *Engine) dirExcluded(dir string) (string, bool) {
	if pat, ok := e.paths.Excluded(dir, true); ok {
		return pat.String(), true
	}
	if !e.negations {
		for _, pat := range e.paths {
			if pat.matchesAllInside(dir) {
				return pat.String(), true
			}
		}
	}
	return "", false
}

// SecretRule names secret pattern i for messages and records:
// "security.secret_patterns[3] (generic_token)", the kind only for a
// default pattern. It never includes what the pattern matched.
func (e *Engine) SecretRule(i int) string {
	if e == nil {
		e = Default()
	}
	rule := fmt.Sprintf("security.secret_patterns[%d]", i)
	if i >= 0 && i < len(e.secretSrc) {
		if k := SecretKindOf(e.secretSrc[i]); k != "" {
			rule += " (" + k + ")"
		}
	}
	return rule
}

// SecretMatch reports whether content matches a secret pattern and the index
// of the first one (in configuration order) that does. Callers must treat
// the content as sensitive and must not log it.
func (e *Engine) SecretMatch(content []byte) (patternIndex int, ok bool) {
	if e == nil {
		e = Default()
	}
	if len(e.secrets.patterns) == 0 {
		return 0, false
	}
	rules := e.secrets.get()
	st := statePool.Get().(*matchState)
	st.reset(content)
	defer statePool.Put(st)
	for i, r := range rules {
		if r.match(content, st) {
			return i, true
		}
	}
	return 0, false
}
