// Command citecheck measures how often dir2mcp's citations are true, as a
// user checks them: it starts `dir2mcp up --stdio` on an indexed corpus,
// runs searches for words drawn from the corpus files, opens every hit's
// cited lines with dir2mcp.open_file and applies cite.Check. It prints the
// share of true citations by doc type, with spans that end before they
// start and spans open_file refused counted as false.
//
// Usage:
//
//	dir2mcp index --dir CORPUS --state-dir STATE
//	go run -tags sqlite_fts5 ./scripts/citecheck --bin bin/dir2mcp --dir CORPUS --state-dir STATE [-n 150] [-v]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/dir2mcp/dir2mcp/lib/cite"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dir2mcp/dir2mcp/lib/mcpclient"
)

var (
	bin      = flag.String("bin", "bin/dir2mcp", "dir2mcp binary to serve the index")
	dir      = flag.String("dir", "", "corpus directory (indexed)")
	stateDir = flag.String("state-dir", "", "state directory of the index (default <dir>/.dir2mcp)")
	queries  = flag.Int("n", 150, "number of searches")
	k        = flag.Int("k", 10, "hits per search")
	seed     = flag.Uint64("seed", 1, "seed for drawing query words")
	verbose  = flag.Bool("v", false, "print every false citation")
	show     = flag.Int("show", 0, "print the first n hits with their snippets")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "citecheck:", err)
		os.Exit(1)
	}
}

type hit struct {
	ChunkID int64       `json:"chunk_id"`
	RelPath string      `json:"rel_path"`
	DocType string      `json:"doc_type"`
	RepType string      `json:"rep_type"`
	Snippet string      `json:"snippet"`
	Span    record.Span `json:"span"`
}

type searchOut struct {
	Hits             []hit `json:"hits"`
	IndexingComplete bool  `json:"indexing_complete"`
}

type openOut struct {
	Content   string `json:"content"`
	Truncated bool   `json:"truncated"`
}

// tally counts the hits of one doc type. loose counts the hits that pass
// once the snippet's markdown markup is taken out (see unmarkdown): the
// lines are right even if the snippet does not read as the file does.
type tally struct{ hits, good, loose, backwards, refused, truncated int }

func run() error {
	if *dir == "" {
		return errors.New("--dir is required")
	}
	ctx := context.Background()
	args := []string{"up", "--stdio", "--non-interactive", "--dir", *dir}
	if *stateDir != "" {
		args = append(args, "--state-dir", *stateDir)
	}
	cmd := exec.Command(*bin, args...)
	cmd.Stderr = nil
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "citecheck", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	c := &mcpclient.Client{Session: cs}

	words, err := corpusWords(*dir)
	if err != nil {
		return err
	}
	if err := waitIndexed(ctx, c); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(*seed, 0))
	by := map[string]*tally{}
	shown := 0
	for q := 0; q < *queries; q++ {
		query := words.query(rng)
		var res searchOut
		if err := c.Call(ctx, "dir2mcp.search", map[string]any{"query": query, "k": *k}, &res); err != nil {
			return fmt.Errorf("search %q: %w", query, err)
		}
		for _, h := range res.Hits {
			t := by[h.DocType]
			if t == nil {
				t = &tally{}
				by[h.DocType] = t
			}
			t.hits++
			if shown < *show {
				shown++
				fmt.Printf("HIT %s [%s:L%d-L%d] query %q\n%s\n\n", h.DocType, h.RelPath, h.Span.StartLine, h.Span.EndLine, query, h.Snippet)
			}
			ok, why := check(ctx, c, h, t)
			if ok {
				t.good++
			} else if *verbose {
				fmt.Printf("FALSE %s [%s:L%d-L%d] query %q: %s\n  snippet: %.300q\n", h.DocType, h.RelPath,
					h.Span.StartLine, h.Span.EndLine, query, why, h.Snippet)
			}
		}
	}
	types := make([]string, 0, len(by))
	for t := range by {
		types = append(types, t)
	}
	sort.Strings(types)
	fmt.Printf("%-8s %6s %6s %7s %7s %9s %8s %9s\n", "doc_type", "hits", "true", "cite", "loose", "backwards", "refused", "truncated")
	var all tally
	line := func(name string, t tally) {
		fmt.Printf("%-8s %6d %6d %7.3f %7.3f %9d %8d %9d\n", name, t.hits, t.good, float64(t.good)/float64(t.hits),
			float64(t.loose)/float64(t.hits), t.backwards, t.refused, t.truncated)
	}
	for _, name := range types {
		t := by[name]
		line(name, *t)
		all.hits, all.good, all.loose, all.backwards, all.refused, all.truncated = all.hits+t.hits, all.good+t.good,
			all.loose+t.loose, all.backwards+t.backwards, all.refused+t.refused, all.truncated+t.truncated
	}
	if all.hits > 0 {
		line("all", all)
	}
	return nil
}

// check opens a hit's span and applies the cite rule.
func check(ctx context.Context, c *mcpclient.Client, h hit, t *tally) (bool, string) {
	args := map[string]any{"rel_path": h.RelPath, "max_chars": 50000}
	switch h.Span.Kind {
	case record.SpanLines:
		if h.Span.EndLine < h.Span.StartLine {
			t.backwards++
			return false, "span ends before it starts"
		}
		args["start_line"], args["end_line"] = h.Span.StartLine, h.Span.EndLine
	case record.SpanPage:
		args["page"] = h.Span.Page
	case record.SpanTime:
		args["start_ms"], args["end_ms"] = h.Span.StartMs, h.Span.EndMs
	}
	var o openOut
	if err := c.Call(ctx, "dir2mcp.open_file", args, &o); err != nil {
		t.refused++
		return false, err.Error()
	}
	if o.Truncated {
		t.truncated++
	}
	if !cite.Check(h.Snippet, o.Content, h.DocType) {
		if cite.Check(unmarkdown(h.Snippet), o.Content, h.DocType) {
			t.loose++
		}
		return false, fmt.Sprintf("snippet not in the cited lines; opened: %.300q", o.Content)
	}
	t.loose++
	return true, ""
}

var (
	mdLink   = regexp.MustCompile(`\[([^\]]*)\]\(https?://[^)]*\)`)
	mdPrefix = regexp.MustCompile(`^\s*(?:> )*(?:#{1,6} |- |\d+\. )?`)
)

// unmarkdown takes out the markup an HTML rendering adds: heading, list
// and quote markers, fences and rules, cell separators, link targets.
func unmarkdown(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = mdPrefix.ReplaceAllString(l, "")
		if l == "```" || l == "---" {
			l = ""
		}
		lines[i] = mdLink.ReplaceAllString(strings.ReplaceAll(l, " | ", " "), "$1")
	}
	return strings.Join(lines, "\n")
}

// waitIndexed waits until the server reports indexing complete.
func waitIndexed(ctx context.Context, c *mcpclient.Client) error {
	deadline := time.Now().Add(30 * time.Minute)
	for time.Now().Before(deadline) {
		var res searchOut
		if err := c.Call(ctx, "dir2mcp.search", map[string]any{"query": "the", "k": 1}, &res); err != nil {
			return err
		}
		if res.IndexingComplete {
			return nil
		}
		time.Sleep(2 * time.Second)
	}
	return errors.New("indexing did not complete in 30 minutes")
}

// wordList holds the words of each corpus file, for drawing queries.
type wordList struct {
	files [][]string // words in order, per file
}

// corpusWords reads the words of every file under root (the visible text
// of HTML), skipping hidden directories.
func corpusWords(root string) (*wordList, error) {
	w := &wordList{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := string(b)
		if strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".htm") {
			s = cite.Visible(s)
		}
		var words []string
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
			if len(f) >= 4 && len(f) <= 30 {
				words = append(words, f)
			}
		}
		if len(words) > 0 {
			w.files = append(w.files, words)
		}
		return nil
	})
	if len(w.files) == 0 && err == nil {
		err = fmt.Errorf("no words under %s", root)
	}
	return w, err
}

// query draws one to three consecutive words of a random file.
func (w *wordList) query(rng *rand.Rand) string {
	f := w.files[rng.IntN(len(w.files))]
	i := rng.IntN(len(f))
	n := 1 + rng.IntN(3)
	return strings.Join(f[i:min(i+n, len(f))], " ")
}
