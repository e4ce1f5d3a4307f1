package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/mcpclient"
)

// grepRounds is how many times each grep pattern is timed per tool.
const grepRounds = 5

// grepTypes are the document types whose text is the file's own bytes
// (HTML is cited by source line of its extracted text, PDFs by page: a
// byte grep would not find the same lines).
var grepTypes = []string{"code", "text", "md", "data"}

// grepPatterns are literals with fewer matching lines in the Go tree
// than grep's max_matches, so both tools return every line and their
// answers can be compared line for line.
var grepPatterns = []string{
	"func NewReader", "ReadFileHeader", "sync.Once", "atomic.AddInt64", "strconv.Quote(", "utf8.RuneError",
	"http.StatusOK", "runtime.GC()", "bufio.NewScanner", "errors.Is(err", "SetDeadline", "ParseDuration",
	"filepath.WalkDir", "json.Unmarshal(", "heap.Fix", "big.NewInt(", "crc32.Checksum", "TLS_ECDHE_ECDSA",
	"MaxInt64", "io.ReadFull(", "context.WithTimeout", "Goexit", "sort.Slice(", "os.MkdirTemp",
}

type grepStats struct {
	files         int
	bytes         int64
	cold          time.Duration
	mcp, ref      []time.Duration
	lines         int
	mismatches    []string
	pats, perPage int
}

func (g grepStats) results() []result {
	sortDurations(g.mcp)
	sortDurations(g.ref)
	p50, r50 := pct(g.mcp, 50), pct(g.ref, 50)
	same := "same matching lines as grep -rn"
	if len(g.mismatches) > 0 {
		same = fmt.Sprintf("%d pattern(s) differ from grep -rn: %s", len(g.mismatches), strings.Join(g.mismatches, "; "))
	}
	return []result{
		{"grep first call (loads index)", g.cold.Round(time.Millisecond).String(), fmt.Sprintf("%d files, %.1f MB of text", g.files, float64(g.bytes)/1e6)},
		{"grep p50 over MCP (literal)", p50.String(), fmt.Sprintf("%d patterns × %d, %d lines; target ≤ 50ms", g.pats, grepRounds, g.lines)},
		{"grep p99 over MCP (literal)", pct(g.mcp, 99).String(), same},
		{"grep -rn p50, same files", r50.String(), fmt.Sprintf("dir2mcp %.1f× faster", float64(r50)/float64(max(p50, 1)))},
	}
}

// grepBench times dir2mcp.grep against grep -rn over the same files: the
// text files dir2mcp indexed.
func grepBench(c *mcpclient.Client, corpus string, rounds int) (grepStats, error) {
	ctx := context.Background()
	files, err := indexedFiles(ctx, c)
	if err != nil {
		return grepStats{}, err
	}
	g := grepStats{files: len(files), pats: len(grepPatterns)}
	for _, f := range files {
		if fi, err := os.Stat(filepath.Join(corpus, f)); err == nil {
			g.bytes += fi.Size()
		}
	}
	start := time.Now()
	if _, err := mcpGrep(ctx, c, "dir2mcp-bench-warmup"); err != nil {
		return g, err
	}
	g.cold = time.Since(start)
	if _, err := runGrep(corpus, files, "dir2mcp-bench-warmup"); err != nil { // the page cache
		return g, err
	}
	for _, p := range grepPatterns {
		got, err := mcpGrep(ctx, c, p)
		if err != nil {
			return g, err
		}
		want, err := runGrep(corpus, files, p)
		if err != nil {
			return g, err
		}
		g.lines += len(want)
		if d := diff(got, want); d != "" {
			g.mismatches = append(g.mismatches, fmt.Sprintf("%q %s", p, d))
		}
	}
	for range rounds {
		for _, p := range grepPatterns {
			t := time.Now()
			if _, err := mcpGrep(ctx, c, p); err != nil {
				return g, err
			}
			g.mcp = append(g.mcp, time.Since(t))
			t = time.Now()
			if _, err := runGrep(corpus, files, p); err != nil {
				return g, err
			}
			g.ref = append(g.ref, time.Since(t))
		}
	}
	return g, nil
}

// indexedFiles lists the indexed text files through dir2mcp.find.
func indexedFiles(ctx context.Context, c *mcpclient.Client) ([]string, error) {
	var files []string
	args := map[string]any{"status": "ok", "doc_types": grepTypes, "limit": 1000}
	for {
		var page struct {
			Files []struct {
				RelPath string `json:"rel_path"`
			} `json:"files"`
			NextCursor string `json:"next_cursor"`
		}
		if err := c.Call(ctx, "dir2mcp.find", args, &page); err != nil {
			return nil, err
		}
		for _, f := range page.Files {
			if !strings.Contains(f.RelPath, "!/") { // archive members are not files grep can read
				files = append(files, f.RelPath)
			}
		}
		if page.NextCursor == "" {
			return files, nil
		}
		args["cursor"] = page.NextCursor
	}
}

// mcpGrep returns the "path:line" of every line dir2mcp.grep matches.
func mcpGrep(ctx context.Context, c *mcpclient.Client, pattern string) (map[string]bool, error) {
	var res struct {
		Matches []struct {
			RelPath string `json:"rel_path"`
			Line    int    `json:"line"`
		} `json:"matches"`
		Truncated bool `json:"truncated"`
	}
	if err := c.Call(ctx, "dir2mcp.grep", map[string]any{"pattern": pattern, "literal": true, "doc_types": grepTypes, "max_matches": 1000}, &res); err != nil {
		return nil, err
	}
	if res.Truncated {
		return nil, fmt.Errorf("grep %q: more than 1000 lines; pick a rarer pattern", pattern)
	}
	out := make(map[string]bool, len(res.Matches))
	for _, m := range res.Matches {
		out[m.RelPath+":"+strconv.Itoa(m.Line)] = true
	}
	return out, nil
}

// runGrep runs grep -rn -F over files (relative to corpus, in batches
// that fit a command line) and returns the "path:line" of every match.
func runGrep(corpus string, files []string, pattern string) (map[string]bool, error) {
	out := map[string]bool{}
	for len(files) > 0 {
		n := min(len(files), 2000)
		args := append([]string{"-rn", "-F", "-Z", "--", pattern}, files[:n]...)
		files = files[n:]
		cmd := exec.Command("grep", args...)
		cmd.Dir = corpus
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 { // 1: no match
				return nil, fmt.Errorf("grep: %v", err)
			}
		}
		for _, ln := range strings.Split(stdout.String(), "\n") {
			path, rest, ok := strings.Cut(ln, "\x00")
			if !ok {
				continue
			}
			num, _, _ := strings.Cut(rest, ":")
			out[path+":"+num] = true
		}
	}
	return out, nil
}

// diff describes how two sets of "path:line" differ ("" when equal).
func diff(got, want map[string]bool) string {
	var missing, extra []string
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	if len(missing)+len(extra) == 0 {
		return ""
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return fmt.Sprintf("missing %d %v extra %d %v", len(missing), head(missing), len(extra), head(extra))
}

func head(s []string) []string { return s[:min(3, len(s))] }
