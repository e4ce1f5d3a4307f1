// Command eval scores dir2mcp's search on the public eval sets
// (testdata/eval/README.md): for every corpus variant it materialises the
// corpus (pinned downloads, cached under -work), indexes it with the real
// pipeline (cached per config fingerprint), runs every query through the
// real search engine in each channel mode, reads every returned hit back
// through the real dir2mcp.open_file tool to check its citation, and prints
// one table: every set × mode × {s@1, s@10, MRR, nDCG, cite, p50} for the
// tuning and the held-out half, then a summary.
//
// Usage: go run -tags sqlite_fts5 ./scripts/eval [flags]   (or: make eval EVALFLAGS=...)
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/eval"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/scripts/evalsets/corpora"
)

var (
	setsDir  = flag.String("sets", "testdata/eval", "directory with <corpus>/<set>.queries.tsv and .qrels")
	setNames = flag.String("set", "", "comma-separated sets, by name or corpus/name (default: all)")
	corpusF  = flag.String("corpus", "", "comma-separated corpora (default: all)")
	variantF = flag.String("variant", "", "comma-separated corpus variants (default: every variant a set lists)")
	modes    = flag.String("mode", "lexical,vector,hybrid", "channel modes (rows)")
	halfF    = flag.String("half", "both", "which half of every set to run: tune, held or both")
	work     = flag.String("work", filepath.Join(os.TempDir(), "dir2mcp-eval"), "cache for downloads, corpora and indexes")
	reindex  = flag.Bool("reindex", false, "rebuild indexes even if cached")
	provider = flag.String("embed", "", "embed.provider override (default: the config default)")
	tune     = flag.String("tune", "", "comma-separated key=value config overrides, e.g. search.rrf_k=30,chunking.code.max_lines=80")
	limit    = flag.Int("n", 0, "use only the first n queries of each set (0 = all)")
	verbose  = flag.Bool("v", false, "print each query that finds nothing relevant in the top 10")
	dumpF    = flag.String("dump", "", "write every query's ranked hits per mode to this NDJSON file")
	jsonF    = flag.String("json", "", "write the summary numbers to this JSON file")
	citeF    = flag.Bool("cite", true, "check every hit's citation through open_file (false: faster, cite column empty)")
	explain  = flag.Bool("explain", false, "with -dump: add every hybrid candidate with its channel evidence, and the judgements")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

func run() error {
	start := time.Now()
	halves, err := pickHalves(*halfF)
	if err != nil {
		return err
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
	fmt.Printf("embedder %s, %s, work dir %s\n", embID, runtime.Version(), *work)

	plan, err := makePlan()
	if err != nil {
		return err
	}
	var dump *dumper
	if *dumpF != "" {
		if dump, err = newDumper(*dumpF); err != nil {
			return err
		}
		defer dump.close()
	}
	cache := &corpora.Cache{Dir: *work, Log: os.Stderr}
	var results []*result
	var timings []timing
	for _, cv := range plan {
		t0 := time.Now()
		root, err := cache.Materialize(cv.corpus, cv.variant)
		if err != nil {
			return err
		}
		tMat := time.Since(t0)
		ix, err := openIndex(cv.corpus.Name, cv.variant, root, cfg, embs)
		if err != nil {
			return err
		}
		tm := timing{name: cv.corpus.Name + "/" + cv.variant, materialize: tMat, index: ix.took, files: ix.files, chunks: ix.chunks}
		t1 := time.Now()
		for _, sv := range cv.sets {
			qs, qrels, err := load(sv.set, root)
			if err != nil {
				ix.close()
				return err
			}
			for _, mode := range split(*modes) {
				r, err := ix.score(sv, qs, qrels, mode, halves, dump)
				if err != nil {
					ix.close()
					return err
				}
				results = append(results, r)
			}
		}
		tm.queries = time.Since(t1)
		timings = append(timings, tm)
		ix.close()
	}
	printTable(os.Stdout, results, halves)
	printCiteByType(os.Stdout, results)
	printSummary(os.Stdout, results, halves)
	printTimings(os.Stdout, timings, time.Since(start))
	if *jsonF != "" {
		if err := writeJSON(*jsonF, embID, results, halves); err != nil {
			return err
		}
	}
	return nil
}

func pickHalves(s string) ([]string, error) {
	switch s {
	case "both", "":
		return []string{eval.Tune, eval.Held}, nil
	case eval.Tune, eval.Held:
		return []string{s}, nil
	}
	return nil, fmt.Errorf("-half %q: want tune, held or both", s)
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

// setVariant is one set scored on one variant of its corpus.
type setVariant struct {
	set     *corpora.Set
	variant string
}

func (sv setVariant) label() string {
	l := sv.set.Corpus + "/" + sv.set.Name
	if sv.variant != corpora.Orig {
		l += " (" + sv.variant + ")"
	}
	return l
}

// corpusVariant is one index to build and the sets to run on it.
type corpusVariant struct {
	corpus  *corpora.Corpus
	variant string
	sets    []setVariant
}

// makePlan selects the sets and variants the flags ask for, in table order,
// skipping (with a notice) sets whose files are missing.
func makePlan() ([]*corpusVariant, error) {
	want := func(list string, names ...string) bool {
		if list == "" {
			return true
		}
		for _, w := range split(list) {
			for _, n := range names {
				if w == n {
					return true
				}
			}
		}
		return false
	}
	var plan []*corpusVariant
	byKey := map[string]*corpusVariant{}
	matched := map[string]bool{}
	for _, s := range corpora.Sets() {
		if !want(*corpusF, s.Corpus) || !want(*setNames, s.Name, s.Corpus+"/"+s.Name) {
			continue
		}
		matched[s.Name], matched[s.Corpus+"/"+s.Name] = true, true
		base := filepath.Join(*setsDir, s.Corpus, s.FileStem())
		if _, err := os.Stat(base + ".queries.tsv"); err != nil {
			fmt.Fprintf(os.Stderr, "eval: skipping set %s/%s: %s.queries.tsv is missing\n", s.Corpus, s.Name, base)
			continue
		}
		for _, v := range s.Variants {
			if !want(*variantF, v) {
				continue
			}
			key := s.Corpus + "/" + v
			cv := byKey[key]
			if cv == nil {
				cv = &corpusVariant{corpus: corpora.ByName(s.Corpus), variant: v}
				byKey[key] = cv
				plan = append(plan, cv)
			}
			cv.sets = append(cv.sets, setVariant{s, v})
		}
	}
	for _, w := range split(*setNames) {
		if !matched[w] {
			return nil, fmt.Errorf("-set %q: no such set", w)
		}
	}
	return plan, nil
}

// load reads a set's queries and qrels, dropping queries whose relevant
// files are missing from the corpus (gostd on another Go version).
func load(s *corpora.Set, corpus string) ([]eval.Query, eval.Qrels, error) {
	base := filepath.Join(*setsDir, s.Corpus, s.FileStem())
	qs, err := eval.ReadQueries(base + ".queries.tsv")
	if err != nil {
		return nil, nil, err
	}
	qrels, err := eval.ReadQrels(base + ".qrels")
	if err != nil {
		return nil, nil, err
	}
	var keep []eval.Query
	dropped := 0
	for _, q := range qs {
		ok := len(qrels[q.ID]) > 0
		for d := range qrels[q.ID] {
			doc, err := eval.ParseDoc(d)
			if err != nil {
				return nil, nil, fmt.Errorf("%s.qrels: %v", base, err)
			}
			if _, err := os.Stat(filepath.Join(corpus, filepath.FromSlash(doc.Path))); err != nil {
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
		fmt.Fprintf(os.Stderr, "%s/%s: %d queries dropped (no judgements, or relevant files missing from the corpus)\n", s.Corpus, s.Name, dropped)
	}
	if *limit > 0 && len(keep) > *limit {
		keep = keep[:*limit]
	}
	return keep, qrels, nil
}
