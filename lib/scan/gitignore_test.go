package scan

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

func sortedPaths(r *result) []string {
	p := r.paths()
	sort.Strings(p)
	return p
}

func TestGitignoreNested(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore": strings.Join([]string{
			"# comment",
			"*.log",
			"!keep.log",
			"/only-root.txt",
			"tmp/",
			"docs/**/draft.md",
			"\\#literal",
			"trailing.txt   ",
			"",
		}, "\n"),
		"a.log":                 "x",
		"keep.log":              "x",
		"only-root.txt":         "x",
		"deep/only-root.txt":    "kept: the pattern is anchored to the root",
		"tmp/x.go":              "package x",
		"sub/tmp/y.go":          "package y",
		"tmp.go":                "package tmp (a file, not the tmp/ directory)",
		"docs/a/b/draft.md":     "x",
		"docs/draft.md":         "x", // "/**/" matches zero directories too
		"docs/final.md":         "x",
		"#literal":              "x",
		"trailing.txt":          "x",
		"sub/.gitignore":        "!important.log\n*.txt\n/local-only\n",
		"sub/important.log":     "re-included by the deeper file",
		"sub/other.log":         "x",
		"sub/notes.txt":         "x",
		"sub/deeper/notes.txt":  "x",
		"sub/local-only":        "x",
		"sub/deeper/local-only": "kept: anchored to sub/",
		"notes.txt":             "kept: sub/.gitignore does not apply here",
		"ign/.gitignore":        "*\n!.gitignore\n",
		"ign/anything.go":       "package ign",
	})
	r := walk(t, Options{Root: root, Gitignore: true})
	want := []string{
		".gitignore",
		"deep/only-root.txt",
		"docs/final.md",
		"ign/.gitignore",
		"keep.log",
		"notes.txt",
		"sub/.gitignore",
		"sub/deeper/local-only",
		"sub/important.log",
		"tmp.go",
	}
	if got := sortedPaths(r); !reflect.DeepEqual(got, want) {
		t.Errorf("records\n got %v\nwant %v", got, want)
	}
	// Without Gitignore every file is walked.
	all := walk(t, Options{Root: root})
	if len(all.docs) <= len(r.docs) {
		t.Errorf("Gitignore=false walked %d files, want more than %d", len(all.docs), len(r.docs))
	}
}

func TestGitignoreParentDirectoryExcluded(t *testing.T) {
	// gitignore(5): a file cannot be re-included when a parent directory
	// is excluded.
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":      "out/\n!out/keep.txt\n",
		"out/keep.txt":    "x",
		"out/other.txt":   "x",
		"stays/keep.txt":  "x",
		"star/.gitignore": "",
	})
	r := walk(t, Options{Root: root, Gitignore: true})
	if _, ok := r.by["out/keep.txt"]; ok {
		t.Error("out/keep.txt re-included although out/ is ignored")
	}
	if _, ok := r.by["stays/keep.txt"]; !ok {
		t.Error("stays/keep.txt missing")
	}
}

func TestGitignoreAboveRootAndInfoExclude(t *testing.T) {
	repo := t.TempDir()
	writeTree(t, repo, map[string]string{
		".git/info/exclude":         "*.bak\n",
		".gitignore":                "*.gen.go\n/proj/generated/\n",
		"proj/.gitignore":           "!keep.gen.go\n",
		"proj/sub/a.go":             "package a",
		"proj/sub/a.gen.go":         "package a",
		"proj/sub/keep.gen.go":      "package a",
		"proj/sub/old.bak":          "x",
		"proj/generated/x.go":       "package x",
		"proj/sub/generated/y.go":   "package y",
		"proj/sub/.gitignore":       "local.txt\n",
		"proj/sub/local.txt":        "x",
		"proj/sub/deeper/local.txt": "x",
	})
	root := filepath.Join(repo, "proj", "sub")
	r := walk(t, Options{Root: root, Gitignore: true})
	want := []string{".gitignore", "a.go", "generated/y.go", "keep.gen.go"}
	if got := sortedPaths(r); !reflect.DeepEqual(got, want) {
		t.Errorf("root inside a work tree: records %v, want %v", got, want)
	}

	r = walk(t, Options{Root: filepath.Join(repo, "proj"), Gitignore: true})
	for _, rel := range []string{"generated/x.go", "sub/a.gen.go", "sub/old.bak", "sub/local.txt", "sub/deeper/local.txt"} {
		if _, ok := r.by[rel]; ok {
			t.Errorf("%s should be ignored (anchored pattern of the parent .gitignore / info/exclude)", rel)
		}
	}
	if _, ok := r.by["sub/keep.gen.go"]; !ok {
		t.Error("sub/keep.gen.go should be re-included by proj/.gitignore")
	}
}

func TestIgnoreOption(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"build/gen.go": "package gen",
		"a.tmp":        "x",
		"dist/x.js":    "x()",
		"main.go":      "package main",
	})
	r := walk(t, Options{Root: root, Ignore: []string{"*.tmp", "!build/"}})
	want := []string{"build/gen.go", "main.go"}
	if got := sortedPaths(r); !reflect.DeepEqual(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
	_, err := tryWalk(Options{Root: root, Ignore: []string{"ok", "[bad"}})
	if e := errcode.As(err); e.Code != errcode.ConfigInvalid || e.Field != "ingest.ignore[1]" {
		t.Errorf("bad pattern: %v (field %q), want CONFIG_INVALID ingest.ignore[1]", err, e.Field)
	}
}

func TestParseIgnoreFile(t *testing.T) {
	rules, _ := parseIgnoreFile([]byte("\xef\xbb\xbf*.o\r\n# c\r\n\r\n[bad\r\n!x.o\r\n"))
	if len(rules) != 2 || rules[0].String() != "*.o" || rules[1].String() != "!x.o" {
		var s []string
		for _, r := range rules {
			s = append(s, r.String())
		}
		t.Errorf("rules %q, want [*.o !x.o] (BOM, CRLF, comments, blank and bad lines dropped)", s)
	}
}

func TestIgnoredKnownFileIsDeletedWithReason(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.go": "package a", "gen/b.go": "package b", "c.log": "x"})
	first := walk(t, Options{Root: root, Gitignore: true})
	writeTree(t, root, map[string]string{".gitignore": "gen/\n*.log\n"})
	r := walk(t, Options{Root: root, Gitignore: true, Known: knownFrom(first.docs)})
	for rel, pat := range map[string]string{"gen/b.go": "gen/", "c.log": "*.log"} {
		d := r.by[rel]
		if d.Change != record.ChangeDeleted || !strings.Contains(d.Reason, ".gitignore pattern \""+pat+"\"") {
			t.Errorf("%s: change %q reason %q; want deleted naming %q", rel, d.Change, d.Reason, pat)
		}
	}
	if r.stats.Deleted != 2 {
		t.Errorf("stats %+v", r.stats)
	}
	_ = os.Remove(filepath.Join(root, ".gitignore"))
}

// TestGitignoreAgreesWithGit compares the walk with git's own verdict
// (git ls-files --others --exclude-standard) on a tree exercising the
// gitignore(5) rules. It is skipped when git is not installed.
func TestGitignoreAgreesWithGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	repo := t.TempDir()
	files := map[string]string{
		".gitignore": "*.o\n!keep.o\n/anchored.txt\nlogs/\ndoc/**/secret.md\nx/**\n!x/y.txt\n**/cache\n" +
			"a?c.txt\n[0-9]*.dat\n*.tmp/\n\\#hash\nsp\\ \nfoo/bar\n",
		".git/info/exclude": "*.excl\n",
		"a.o":               "", "keep.o": "", "sub/b.o": "", "sub/keep.o": "",
		"anchored.txt": "", "sub/anchored.txt": "",
		"logs/today.txt": "", "sub/logs/x": "", "logs.txt": "",
		"doc/secret.md": "", "doc/a/b/secret.md": "", "doc/public.md": "",
		"x/y.txt": "", "x/z.txt": "", "x/deep/y.txt": "",
		"cache": "", "p/cache/q.txt": "", "p/cachex": "",
		"abc.txt": "", "abbc.txt": "", "1.dat": "", "a1.dat": "",
		"d.tmp/f": "", "e.tmp": "",
		"#hash": "", "sp ": "", "sp": "",
		"foo/bar": "", "q/foo/bar": "",
		"m.excl": "", "sub/n.excl": "",
		"sub/.gitignore": "!b.o\n*.md\n/top-only\n",
		"sub/readme.md":  "", "sub/top-only": "", "sub/s/top-only": "",
		"sub/deep/.gitignore": "!*.md\n",
		"sub/deep/again.md":   "",
		"plain.go":            "",
	}
	writeTree(t, repo, files)
	cmd := exec.Command(gitBin, "init", "-q")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	cmd = exec.Command(gitBin, "ls-files", "--others", "--exclude-standard", "-z")
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var want []string
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if p != "" {
			want = append(want, p)
		}
	}
	sort.Strings(want)
	eng, _ := exclude.New(nil, nil)
	got := sortedPaths(walk(t, Options{Root: repo, Gitignore: true, Exclude: eng}))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("walk and git disagree\n walk %q\n  git %q", got, want)
	}
}
