package store

import (
	"context"
	"slices"
	"testing"
)

func TestWithin(t *testing.T) {
	pre := []string{"docs/", "README.md", "x.zip"}
	for rel, want := range map[string]bool{
		"docs/a.md": true, "docs": true, "docs/sub/b.txt": true, "docsx/a.md": false, "README.md": true,
		"README.md.bak": false, "x.zip!/a/b.txt": true, "x.zipper": false, "src/docs/a.md": false,
	} {
		if got := Within(rel, pre); got != want {
			t.Errorf("Within(%q) = %v, want %v", rel, got, want)
		}
	}
	if !Within("anything", nil) {
		t.Error("no prefixes allows everything")
	}
}

// Within in SQL agrees with Within in Go for listings (search applies the
// Go test: lib/retrieve).
func TestWithinInSQL(t *testing.T) {
	s, _ := openTest(t)
	paths := []string{"docs/a.go", "docs/sub/b.go", "docsx/c.go", "README.md", "README.md.bak", "x.zip!/m.go", "src/d.go"}
	for _, p := range paths {
		put(t, s, p, "rep-"+p, "shared words here")
	}
	pre := []string{"docs/", "README.md", "x.zip"}
	var want []string
	for _, p := range paths {
		if Within(p, pre) {
			want = append(want, p)
		}
	}
	ctx := context.Background()
	docs, err := s.Documents(ctx, DocQuery{Within: pre, MaxSize: -1}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.RelPath)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("listing = %v, want %v", got, want)
	}
}
