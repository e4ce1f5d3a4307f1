// Command eval scores dir2mcp's search on the gostd retrieval sets
// (testdata/eval/gostd): it materialises the Go standard library corpus
// (original, and with comments stripped so only semantics can find code),
// indexes each copy with the real pipeline, runs every query through the
// real search engine (the code path of the dir2mcp.search tool) in each
// channel mode, and prints one table of success@1, success@10, MRR@10,
// nDCG@10, recall@10 and latency.
//
// Usage: go run -tags sqlite_fts5 ./scripts/eval [flags]   (or: make eval)
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/eval"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

var (
	setsDir  = flag.String("sets", "testdata/eval/gostd", "directory with <set>.sample.queries.tsv and .qrels")
	sets     = flag.String("set", "symbol,package", "comma-separated sets")
	variants = flag.String("variant", "orig,stripped", "corpus variants: orig, stripped (comments removed)")
	modes    = flag.String("mode", "lexical,vector,hybrid", "channel modes (rows)")
	work     = flag.String("work", filepath.Join(os.TempDir(), "dir2mcp-eval"), "cache for corpora and indexes")
	reindex  = flag.Bool("reindex", false, "rebuild indexes even if cached")
	provider = flag.String("embed", "", "embed.provider override (default: the config default)")
	tune     = flag.String("tune", "", "comma-separated key=value config overrides, e.g. search.rrf_k=30,chunking.code.max_lines=80")
	limit    = flag.Int("n", 0, "use only the first n queries of each set (0 = all)")
	verbose  = flag.Bool("v", false, "print each failed query")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

type row struct {
	mode    string
	results map[string]eval.Summary // by column ("symbol", "symbol/stripped", ...)
}

func run() error {
	goroot := runtime.GOROOT()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		goroot = strings.TrimSpace(string(out))
	}
	flags := map[string]string{}
	if *provider != "" {
		flags["embed.provider"] = *provider
	}
	for _, kv := range split(*tune) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("-tune %q: want key=value", kv)
		}
		flags[k] = v
	}
	cfg, _, err := config.Load(config.LoadOptions{Dir: os.TempDir(), ConfigPath: "", Flags: flags})
	if err != nil {
		return err
	}
	cfg.Ingest.Watch = false
	embs, err := embedders.Open(cfg)
	if err != nil {
		return err
	}
	var embID string
	for _, e := range embs {
		embID = e.ID()
	}
	fmt.Printf("embedder %s, %s, corpus %s/src\n", embID, runtime.Version(), goroot)
	rows := map[string]*row{}
	var cols []string
	for _, variant := range split(*variants) {
		corpus, err := materialize(goroot, variant)
		if err != nil {
			return err
		}
		st, dir, took, err := index(corpus, variant, cfg, embs)
		if err != nil {
			return err
		}
		c, _ := st.Counts(context.Background())
		fmt.Printf("%-9s %d files, %d chunks (%s)\n", variant, c.Documents, c.Chunks, took)
		eng := retrieve.Open(st, dir, cfg, embs, 0)
		eng.WaitLoaded()
		for _, set := range split(*sets) {
			col := set
			if variant != "orig" {
				col += "/" + variant
			}
			cols = append(cols, col)
			qs, qrels, err := load(set, corpus)
			if err != nil {
				return err
			}
			for _, mode := range split(*modes) {
				sum, err := score(eng, qs, qrels, mode, col)
				if err != nil {
					return err
				}
				if rows[mode] == nil {
					rows[mode] = &row{mode: mode, results: map[string]eval.Summary{}}
				}
				rows[mode].results[col] = sum
			}
		}
		eng.Close()
		st.Close()
	}
	print(rows, cols)
	return nil
}

func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// materialize copies the gostd corpus (optionally comment-stripped) into
// the work dir with the in-tree generator, once per Go version.
func materialize(goroot, variant string) (string, error) {
	dst := filepath.Join(*work, runtime.Version(), "corpus-"+variant)
	if _, err := os.Stat(filepath.Join(dst, ".complete")); err == nil {
		return dst, nil
	}
	os.RemoveAll(dst)
	args := []string{"run", "./scripts/gostd", "-root", filepath.Join(goroot, "src"),
		"-out", filepath.Join(*work, runtime.Version(), "sets"), "-materialize", dst}
	if variant == "stripped" {
		args = append(args, "-strip-comments")
	} else if variant != "orig" {
		return "", fmt.Errorf("unknown variant %q", variant)
	}
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("materialize %s: %v", variant, err)
	}
	return dst, os.WriteFile(filepath.Join(dst, ".complete"), nil, 0o644)
}

// index builds (or reuses) the index of a corpus under the given config,
// with the same in-process pipeline `dir2mcp up` runs.
func index(corpus, variant string, cfg *config.Config, embs map[string]embed.Embedder) (*store.Store, state.Dir, time.Duration, error) {
	ctx := context.Background()
	var ids []string
	for _, k := range []string{"text", "code"} {
		ids = append(ids, embs[k].ID())
	}
	key := fmt.Sprintf("%s|%s|%d", indexer.PolicyFingerprint(cfg), strings.Join(ids, ","), store.SchemaVersion)
	sum := sha256.Sum256([]byte(key + store.SchemaDDL()))
	dir := state.Dir{Path: filepath.Join(*work, runtime.Version(), "state-"+variant+"-"+hex.EncodeToString(sum[:6]))}
	if *reindex {
		os.RemoveAll(dir.Path)
	}
	if err := dir.Ensure(); err != nil {
		return nil, dir, 0, err
	}
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		return nil, dir, 0, err
	}
	start := time.Now()
	job := &indexer.Job{Config: cfg, Root: corpus, Dir: dir, Store: st, Embedders: embs, Events: events.NewHuman(os.Stderr, os.Stderr, true)}
	if err := job.Run(ctx); err != nil {
		st.Close()
		return nil, dir, 0, err
	}
	return st, dir, time.Since(start).Round(time.Millisecond), nil
}

// load reads a set's queries and qrels, dropping queries whose relevant
// files are missing from the corpus (another Go version).
func load(set, corpus string) ([]eval.Query, eval.Qrels, error) {
	qs, err := eval.ReadQueries(filepath.Join(*setsDir, set+".sample.queries.tsv"))
	if err != nil {
		return nil, nil, err
	}
	qrels, err := eval.ReadQrels(filepath.Join(*setsDir, set+".sample.qrels"))
	if err != nil {
		return nil, nil, err
	}
	var keep []eval.Query
	dropped := 0
	for _, q := range qs {
		ok := len(qrels[q.ID]) > 0
		for p := range qrels[q.ID] {
			if _, err := os.Stat(filepath.Join(corpus, p)); err != nil {
				ok = false
			}
		}
		if ok {
			keep = append(keep, q)
		} else {
			dropped++
		}
	}
	if dropped > 0 {
		fmt.Fprintf(os.Stderr, "%s: %d queries dropped (relevant files missing from this Go version's corpus)\n", set, dropped)
	}
	if *limit > 0 && len(keep) > *limit {
		keep = keep[:*limit]
	}
	return keep, qrels, nil
}

// score runs every query through the engine and scores the file ranking.
func score(eng *retrieve.Engine, qs []eval.Query, qrels eval.Qrels, mode, col string) (eval.Summary, error) {
	var scores []eval.Scores
	var lat []time.Duration
	for _, q := range qs {
		start := time.Now()
		res, err := eng.Search(context.Background(), retrieve.Request{Query: q.Text, K: retrieve.MaxK, Mode: mode})
		if err != nil {
			return eval.Summary{}, fmt.Errorf("%s %q: %v", q.ID, q.Text, err)
		}
		lat = append(lat, time.Since(start))
		paths := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			paths[i] = h.RelPath
		}
		ranked := eval.Distinct(paths)
		s := eval.Score(ranked, qrels[q.ID])
		scores = append(scores, s)
		if *verbose && s.SuccessK == 0 {
			fmt.Printf("MISS %s %s %s %q → %v\n", col, mode, q.ID, q.Text, ranked[:min(3, len(ranked))])
		}
	}
	return eval.Summarize(scores, lat), nil
}

var modeName = map[string]string{"lexical": "BM25-only", "vector": "vector-only", "hybrid": "hybrid (default)"}

func print(rows map[string]*row, cols []string) {
	fmt.Println()
	fmt.Printf("| %-17s |", "")
	for _, c := range cols {
		fmt.Printf(" %-42s |", c)
	}
	fmt.Println()
	fmt.Printf("| %-17s |", "")
	for range cols {
		fmt.Printf(" %-6s %-6s %-6s %-6s %-6s %-7s |", "s@1", "s@10", "MRR", "nDCG", "R@10", "p50")
	}
	fmt.Println()
	fmt.Printf("|%s|", strings.Repeat("-", 19))
	for range cols {
		fmt.Printf("%s|", strings.Repeat("-", 44))
	}
	fmt.Println()
	for _, mode := range split(*modes) {
		r := rows[mode]
		if r == nil {
			continue
		}
		name := modeName[mode]
		if name == "" {
			name = mode
		}
		fmt.Printf("| %-17s |", name)
		for _, c := range cols {
			s := r.results[c]
			fmt.Printf(" %-6s %-6s %-6s %-6s %-6s %-7s |", f2(s.Mean.Success1), f2(s.Mean.SuccessK), f2(s.Mean.MRR),
				f2(s.Mean.NDCG), f2(s.Mean.Recall), ms(s.P50))
		}
		fmt.Println()
	}
	if len(cols) > 0 {
		fmt.Printf("(queries per column: ")
		for i, c := range cols {
			if i > 0 {
				fmt.Print(", ")
			}
			fmt.Printf("%s %d", c, rows[split(*modes)[0]].results[c].N)
		}
		fmt.Println(")")
	}
}

func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + "ms"
}
