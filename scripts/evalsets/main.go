// Command evalsets generates the public eval sets of `make eval` from their
// pinned corpora (see corpora/ and testdata/eval/README.md): for every
// generated set it materialises the corpus (downloads verified by sha256
// and cached under -work), derives the queries and judgements, and writes
// testdata/eval/<corpus>/<set>.queries.tsv and .qrels. The output depends
// only on the pinned inputs: a second run rewrites the same bytes (-check
// verifies that without writing).
//
// Usage: go run ./scripts/evalsets [-work DIR] [-out testdata/eval] [-corpus a,b] [-check]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dir2mcp/dir2mcp/scripts/evalsets/corpora"
)

var (
	work   = flag.String("work", filepath.Join(os.TempDir(), "dir2mcp-eval"), "cache for downloads and corpora")
	out    = flag.String("out", "testdata/eval", "where the sets are written")
	only   = flag.String("corpus", "", "comma-separated corpora (default: all)")
	check  = flag.Bool("check", false, "compare with the files under -out instead of writing them")
	failed bool
)

func main() {
	flag.Parse()
	cache := &corpora.Cache{Dir: *work, Log: os.Stderr}
	want := map[string]bool{}
	for _, c := range strings.Split(*only, ",") {
		if c = strings.TrimSpace(c); c != "" {
			want[c] = true
		}
	}
	for _, s := range corpora.Sets() {
		if !s.Generated() || len(want) > 0 && !want[s.Corpus] {
			continue
		}
		root, err := cache.Materialize(corpora.ByName(s.Corpus), corpora.Orig)
		if err != nil {
			fatal(err)
		}
		queries, qrels, n, err := s.Generate(root)
		if err != nil {
			fatal(fmt.Errorf("%s/%s: %w", s.Corpus, s.Name, err))
		}
		base := filepath.Join(*out, s.Corpus, s.FileStem())
		emit(base+".queries.tsv", queries)
		emit(base+".qrels", qrels)
		fmt.Printf("%-12s %-11s %4d queries\n", s.Corpus, s.Name, n)
	}
	if failed {
		os.Exit(1)
	}
}

func emit(path, content string) {
	if *check {
		if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, []byte(content)) {
			fmt.Fprintf(os.Stderr, "evalsets: %s differs from what the pinned inputs give\n", path)
			failed = true
		}
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "evalsets:", err)
	os.Exit(1)
}
