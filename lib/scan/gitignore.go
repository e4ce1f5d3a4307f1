package scan

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/exclude"
)

// maxIgnoreFile bounds how much of one ignore file is read.
const maxIgnoreFile = 4 << 20

// gitignore evaluates .gitignore files with git's precedence: the rules of
// a deeper directory override those of its parents, within one file the
// last matching line wins, "!" re-includes, and $GIT_DIR/info/exclude has
// the lowest precedence. When the root lies inside a git work tree, the
// .gitignore files between the top of the work tree and the root apply too,
// relative to their own directories. A directory's rules are pushed when
// the walk enters it and popped when it leaves. Global excludes
// (core.excludesFile) are not read.
type gitignore struct {
	frames []ignoreFrame // outermost first
}

// ignoreFrame is one ignore file's rules and the directory they are
// relative to.
type ignoreFrame struct {
	source string // shown in reasons, e.g. "docs/.gitignore"
	// base is that directory relative to the root ("" for the root), for
	// frames inside the root. For frames above the root, above is the root
	// relative to that directory ("sub/root"), and paths get it prepended.
	base  string
	above string
	rules exclude.Rules
	lines []int              // the line number of each rule in source
	files *exclude.FileRules // rules, for files; built on first use
}

// match returns the deciding pattern for rel (relative to the root), the
// frame holding it and whether it ignores the path.
func (g *gitignore) match(rel string, isDir bool) (pat *exclude.Pattern, frame *ignoreFrame, ignored bool) {
	for i := len(g.frames) - 1; i >= 0; i-- {
		f := &g.frames[i]
		p := rel
		switch {
		case f.above != "":
			p = f.above + "/" + rel
		case f.base != "":
			p = rel[len(f.base)+1:]
		}
		var pat *exclude.Pattern
		if isDir {
			pat = f.rules.Decide(p, true)
		} else {
			if f.files == nil {
				f.files = f.rules.ForFiles()
			}
			pat = f.files.Decide(p)
		}
		if pat != nil {
			return pat, f, !pat.Negate
		}
	}
	return nil, nil, false
}

func (g *gitignore) push(f ignoreFrame) { g.frames = append(g.frames, f) }
func (g *gitignore) pop()               { g.frames = g.frames[:len(g.frames)-1] }

// where names the line of f that holds pat: "source:line: pattern".
func (f *ignoreFrame) where(pat *exclude.Pattern) string {
	for i, p := range f.rules {
		if p == pat && i < len(f.lines) {
			return fmt.Sprintf("%s:%d: %s", f.source, f.lines[i], pat)
		}
	}
	return f.source + ": " + pat.String()
}

// parseIgnoreFile parses gitignore lines into rules and their line
// numbers. Blank lines and comments are skipped, and so are lines git would
// not accept as patterns.
func parseIgnoreFile(data []byte) (exclude.Rules, []int) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var rules exclude.Rules
	var lines []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreFile)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if p, err := exclude.ParsePattern(line); err == nil {
			rules = append(rules, p)
			lines = append(lines, n)
		}
	}
	return rules, lines
}

// readIgnoreFile reads and parses one ignore file into a frame's rules and
// lines; a missing file is no rules and no error.
func readIgnoreFile(path string) (ignoreFrame, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return ignoreFrame{}, nil
		}
		return ignoreFrame{}, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxIgnoreFile {
		return ignoreFrame{}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ignoreFrame{}, err
	}
	rules, lines := parseIgnoreFile(data)
	return ignoreFrame{rules: rules, lines: lines}, nil
}

// newGitignore sets up the frames that apply before the walk starts:
// info/exclude of the enclosing repository and the .gitignore files of the
// directories above the root inside its work tree. realRoot must be
// absolute and free of symlinks.
func newGitignore(realRoot string, warn func(string)) *gitignore {
	g := &gitignore{}
	top, gitDir := findWorkTree(realRoot)
	if top == "" {
		return g
	}
	rootFromTop, err := filepath.Rel(top, realRoot)
	if err != nil {
		return g
	}
	rootFromTop = filepath.ToSlash(rootFromTop)
	aboveFor := func(dir string) string { // root relative to dir, or "" when dir is the root
		r, _ := filepath.Rel(dir, realRoot)
		if r == "." {
			return ""
		}
		return filepath.ToSlash(r)
	}
	for _, p := range infoExcludePaths(gitDir) {
		f, err := readIgnoreFile(p)
		if err != nil {
			warn("cannot read " + p + ": " + err.Error())
		}
		if len(f.rules) > 0 {
			f.source, f.above = "$GIT_DIR/info/exclude", aboveFor(top)
			g.push(f)
		}
	}
	if rootFromTop == "." {
		return g // the root's own .gitignore is read by the walk
	}
	dir := top
	for _, part := range append([]string{""}, strings.Split(rootFromTop, "/")...) {
		if part != "" {
			dir = filepath.Join(dir, part)
		}
		if dir == realRoot {
			break
		}
		p := filepath.Join(dir, ".gitignore")
		f, err := readIgnoreFile(p)
		if err != nil {
			warn("cannot read " + p + ": " + err.Error())
		}
		if len(f.rules) > 0 {
			f.source, f.above = p, aboveFor(dir)
			g.push(f)
		}
	}
	return g
}

// findWorkTree returns the top directory of the git work tree holding dir
// and its git directory, or "" when dir is not inside one.
func findWorkTree(dir string) (top, gitDir string) {
	for d := dir; ; {
		dot := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dot); err == nil {
			if fi.IsDir() {
				return d, dot
			}
			if fi.Mode().IsRegular() { // worktree or submodule: "gitdir: <path>"
				if b, err := os.ReadFile(dot); err == nil {
					if s, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
						g := strings.TrimSpace(s)
						if !filepath.IsAbs(g) {
							g = filepath.Join(d, g)
						}
						return d, g
					}
				}
				return d, ""
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// infoExcludePaths lists the info/exclude files of a git directory: its
// own and, for a linked worktree, the common directory's.
func infoExcludePaths(gitDir string) []string {
	if gitDir == "" {
		return nil
	}
	paths := []string{filepath.Join(gitDir, "info", "exclude")}
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		paths = append([]string{filepath.Join(common, "info", "exclude")}, paths...)
	}
	return paths
}
