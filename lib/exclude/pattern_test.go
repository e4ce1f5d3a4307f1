package exclude

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Cases follow the examples and rules of gitignore(5).
func TestPatternMatch(t *testing.T) {
	type c struct {
		path  string
		isDir bool
		want  bool
	}
	tests := []struct {
		pattern string
		cases   []c
	}{
		// No slash: matches a name at any depth, files and directories.
		{"foo", []c{{"foo", false, true}, {"a/foo", false, true}, {"a/b/foo", true, true}, {"foobar", false, false}, {"a/foo/b", false, false}}},
		// Trailing slash: directories only.
		{"frotz/", []c{{"frotz", true, true}, {"a/frotz", true, true}, {"frotz", false, false}}},
		// A slash at the start or middle anchors to the base directory.
		{"/foo", []c{{"foo", false, true}, {"a/foo", false, false}}},
		{"doc/frotz", []c{{"doc/frotz", true, true}, {"a/doc/frotz", true, false}}},
		{"doc/frotz/", []c{{"doc/frotz", true, true}, {"doc/frotz", false, false}}},
		// "*" does not cross "/".
		{"foo/*", []c{{"foo/test.json", false, true}, {"foo/bar", true, true}, {"foo/bar/hello.c", false, false}}},
		{"*.pem", []c{{"key.pem", false, true}, {"a/b/key.pem", false, true}, {"key.pem.txt", false, false}, {".pem", false, true}}},
		{"a*b", []c{{"ab", false, true}, {"axxb", false, true}, {"a/b", false, false}}},
		// Leading "**/": any depth.
		{"**/foo", []c{{"foo", false, true}, {"x/y/foo", false, true}, {"foox", false, false}}},
		{"**/foo/bar", []c{{"foo/bar", false, true}, {"x/foo/bar", false, true}, {"x/foo/baz", false, false}}},
		// Trailing "/**": everything inside, not the directory itself.
		{"abc/**", []c{{"abc/x", false, true}, {"abc/x/y", false, true}, {"abc", true, false}, {"x/abc/y", false, false}}},
		// "/**/": zero or more directories.
		{"a/**/b", []c{{"a/b", false, true}, {"a/x/b", false, true}, {"a/x/y/b", false, true}, {"a/x/y/c", false, false}}},
		{"**/.git/**", []c{{".git/config", false, true}, {"x/.git/objects/ab", false, true}, {".git", true, false}, {"x/.github/y", false, false}}},
		// "?" and brackets.
		{"file?.txt", []c{{"file1.txt", false, true}, {"file.txt", false, false}, {"file12.txt", false, false}}},
		{"[abc].go", []c{{"a.go", false, true}, {"d.go", false, false}}},
		{"[!abc].go", []c{{"d.go", false, true}, {"a.go", false, false}}},
		{"[^a-c].go", []c{{"d.go", false, true}, {"b.go", false, false}}},
		{"v[0-9][[:digit:]]", []c{{"v12", false, true}, {"v1x", false, false}}},
		{"[]]x", []c{{"]x", false, true}}},
		{"?", []c{{"é", false, true}, {"ab", false, false}}},
		// Escapes.
		{`\#notes`, []c{{"#notes", false, true}}},
		{`\!important`, []c{{"!important", false, true}}},
		{`a\*b`, []c{{"a*b", false, true}, {"axb", false, false}}},
		{`trailing\ `, []c{{"trailing ", false, true}}},
		{"spaces   ", []c{{"spaces", false, true}}},
		// Other consecutive asterisks are ordinary stars.
		{"x**y", []c{{"xabcy", false, true}, {"x/y", false, false}}},
	}
	for _, tt := range tests {
		p, err := ParsePattern(tt.pattern)
		if err != nil {
			t.Fatalf("ParsePattern(%q): %v", tt.pattern, err)
		}
		for _, cc := range tt.cases {
			if got := p.Match(cc.path, cc.isDir); got != cc.want {
				t.Errorf("%q.Match(%q, dir=%v) = %v, want %v", tt.pattern, cc.path, cc.isDir, got, cc.want)
			}
		}
	}
}

func TestParsePatternErrors(t *testing.T) {
	for _, s := range []string{"", "   ", "!", "/", "[abc", `abc\`, "a//b", "[[:nope:]]", "[z-a]", "# comment"} {
		if _, err := ParsePattern(s); err == nil {
			t.Errorf("ParsePattern(%q) succeeded, want an error", s)
		}
	}
}

func TestParsePatternFlags(t *testing.T) {
	p, err := ParsePattern("!build/")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Negate || !p.DirOnly || p.String() != "!build/" {
		t.Errorf("got Negate=%v DirOnly=%v String=%q", p.Negate, p.DirOnly, p.String())
	}
}

func TestRulesLastMatchWins(t *testing.T) {
	var r Rules
	for _, s := range []string{"*.log", "!keep.log", "deep/keep.log"} {
		p, err := ParsePattern(s)
		if err != nil {
			t.Fatal(err)
		}
		r = append(r, p)
	}
	tests := []struct {
		path string
		want bool
	}{
		{"a.log", true},
		{"keep.log", false},
		{"x/keep.log", false},
		{"deep/keep.log", true},
		{"a.txt", false},
	}
	for _, tt := range tests {
		if _, got := r.Excluded(tt.path, false); got != tt.want {
			t.Errorf("Excluded(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestPathExcludedIgnoresCase(t *testing.T) {
	e := Default()
	for _, p := range []string{".env", ".Env", "sub/.ENV", "keys/ID_RSA"} {
		if _, ok := e.PathExcluded(p); !ok {
			t.Errorf("%s not excluded", p)
		}
	}
	if pat, ok := e.PathExcluded("docs/README.md"); ok {
		t.Errorf("docs/README.md excluded by %s", pat)
	}
}

// Hostile globs (issue 14, 0f): a pattern over the size bounds is refused;
// repeated "**/" is one; many "**" segments match in polynomial time (the
// unmemoized matcher takes C(62,30) steps on this pair and never ends).
func TestPatternBoundsAndHostileGlobs(t *testing.T) {
	for _, s := range []string{strings.Repeat("**/", 2000), strings.Repeat("a/", MaxPatternSegments) + "b", strings.Repeat("*", MaxPatternBytes+1)} {
		if _, err := ParsePattern(s); err == nil {
			t.Errorf("ParsePattern(%.20q… %d bytes) accepted", s, len(s))
		}
	}
	p, err := ParsePattern(strings.Repeat("**/", 20) + "*.go")
	if err != nil || !p.Match("a/b/c.go", false) || !p.Match("c.go", false) || p.Match("c.txt", false) || len(p.segs) != 1 {
		t.Errorf("repeated **/ = %+v, %v", p, err)
	}
	hostile, err := ParsePattern(strings.Repeat("**/a/", 30) + "b")
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimSuffix(strings.Repeat("a/", 62), "/")
	if hostile.Match(path, false) || !hostile.Match(path+"/b", false) {
		t.Error("hostile pattern matched wrongly")
	}
}

// naiveMatch is the plain recursive matcher, the reference for matchPath.
func naiveMatch(segs []segment, parts []string) bool {
	if len(segs) == 0 {
		return len(parts) == 0
	}
	if segs[0].kind == segDoubleStar {
		if len(segs) == 1 {
			return len(parts) > 0
		}
		for k := 0; k < len(parts); k++ {
			if naiveMatch(segs[1:], parts[k:]) {
				return true
			}
		}
		return false
	}
	return len(parts) > 0 && segs[0].match(parts[0]) && naiveMatch(segs[1:], parts[1:])
}

// The memoized matcher agrees with the plain one on random patterns with
// several "**" and random paths.
func TestMemoizedMatchAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"**", "a", "b", "*", "a*", "?"}
	names := []string{"a", "b", "ab", "ba", "c"}
	for range 20000 {
		var ps, xs []string
		for range 1 + rng.IntN(6) {
			ps = append(ps, words[rng.IntN(len(words))])
		}
		for range rng.IntN(7) {
			xs = append(xs, names[rng.IntN(len(names))])
		}
		p, err := ParsePattern("/" + strings.Join(ps, "/"))
		if err != nil {
			t.Fatal(err)
		}
		path := strings.Join(xs, "/")
		if got, want := matchPath(p.segs, path), naiveMatch(p.segs, xs); got != want {
			t.Fatalf("%q on %q: %v, want %v", p, path, got, want)
		}
	}
}

// "**/name/**" is matched without splitting the path; the verdict is the
// general matcher's.
func TestInsidePatternMatchesLikeMatchPath(t *testing.T) {
	paths := []string{"", "a", ".git", ".git/x", "a/.git/x", "a/.git", "a/b/.git/c/d", ".gitx/y", "a/x.git/y",
		"node_modules/a", "a/node_modules", "a/node_modules/b/c", "NODE_MODULES/a", "a/b", "x/.git/"}
	for _, pat := range []string{"**/.git/**", "**/node_modules/**", "**/*.d/**", "**/[ab]/**"} {
		p, err := ParsePattern(pat)
		if err != nil {
			t.Fatal(err)
		}
		if p.inside == nil {
			t.Fatalf("%s: no fast path", pat)
		}
		for _, s := range paths {
			for _, dir := range []bool{false, true} {
				if got, want := p.Match(s, dir), matchPath(p.segs, s); got != want {
					t.Errorf("%s on %q (dir %v): %v, matchPath %v", pat, s, dir, got, want)
				}
			}
		}
	}
}

// The engine's file index decides a file path as Rules.Decide does, for
// every kind of pattern, negations and precedence included.
func TestFileIndexAgreesWithDecide(t *testing.T) {
	sets := [][]string{
		DefaultPathExcludes,
		append(append([]string{}, DefaultPathExcludes...), "!keep.pem", "docs/*.md", "!docs/ok.md", "*.md", "a/**/b.txt", "[ab]*.log", "x?z", "build/", "/root.txt", "**/.env"),
		{"*.go", "!main.go", "main*", "!*_test.go", "cmd/**", "**/testdata/**", "secret", "dir/secret"},
	}
	paths := []string{"a.txt", ".env", "x/.env", ".env.local", "k.pem", "keep.pem", "x/keep.pem", "docs/a.md", "docs/ok.md", "docs/sub/b.md",
		"a/b.txt", "a/x/y/b.txt", "b.log", "c.log", "xyz", "x/xyz", "build", "root.txt", "x/root.txt", ".aws/credentials", "a/.aws/credentials",
		"main.go", "x/main.go", "main_test.go", "util.go", "cmd/x", "cmd/a/b.go", "p/testdata/q", "secret", "dir/secret", "x/dir/secret",
		".docker/config.json", "y/.docker/config.json", "config.json", ".git/HEAD", "a/node_modules/b", "id_rsa", "id_rsa.pub"}
	for _, set := range sets {
		var r Rules
		for _, s := range set {
			p, err := ParsePattern(s)
			if err != nil {
				t.Fatal(err)
			}
			r = append(r, p)
		}
		x := newFileIndex(r, false)
		for _, p := range paths {
			if got, want := x.decide(r, p), r.Decide(p, false); got != want {
				t.Errorf("%v on %q: index %v, Decide %v", set, p, got, want)
			}
		}
	}
}
