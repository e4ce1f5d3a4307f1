// Command pairs extracts training pairs for the local embedder's table fit
// (scripts/distill/README.md) from pinned sources:
//
//   - the Go modules of scripts/distill/gomodules.txt (Go module cache):
//     Go doc sentences ↔ declarations (kind go), markdown sections (md,
//     mdq, faq);
//   - the npm packages of scripts/distill/npmpackages.txt (installed in
//     scripts/distill/node_modules by npm ci): JSDoc sentences ↔
//     JavaScript/TypeScript declarations (js), Python docstrings ↔ defs
//     and classes shipped inside them (py), markdown sections;
//   - the Debian crate packages of scripts/distill/crates.txt (apt-get
//     download, SHA-256 checked, unpacked under scripts/distill/crates):
//     Rust /// sentences ↔ items (rs), markdown sections.
//
// Code pairs mask the identifier the way the gostd eval masks its queries
// and give the code side as lib/embed/local's CodeText of the declaration
// with all comments removed. Pairs whose sentence also documents anything
// in $(go env GOROOT)/src, or equals a query of testdata/eval, are dropped.
// Output is JSON lines in list order, then file path order, then source
// order: byte-identical run to run for the same lists and Go toolchain.
//
// Usage: go run ./scripts/distill/pairs [flags]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	d := filepath.Join("scripts", "distill")
	var c config
	flag.StringVar(&c.goList, "list", filepath.Join(d, "gomodules.txt"), "pinned Go modules: `path version h1-sum licence` per line")
	flag.StringVar(&c.npmList, "npm", filepath.Join(d, "npmpackages.txt"), "pinned npm packages: `name version licence` per line")
	flag.StringVar(&c.nodeModules, "node-modules", filepath.Join(d, "node_modules"), "where the npm packages are installed")
	flag.StringVar(&c.crateList, "crates", filepath.Join(d, "crates.txt"), "pinned Debian crate packages: `librust-NAME-dev version sha256 licence` per line")
	flag.StringVar(&c.crateCache, "crate-cache", filepath.Join(d, "crates"), "where the crate .debs are downloaded and unpacked")
	flag.BoolVar(&c.fetch, "fetch", true, "download missing Go modules and crate .debs (false: fail instead)")
	flag.StringVar(&c.evalDir, "eval", filepath.Join("testdata", "eval"), "directory whose *queries.tsv queries are never training sentences")
	kinds := flag.String("kinds", "go,md,js,py,rs", "comma-separated kinds to extract (md also gives mdq and faq)")
	out := flag.String("o", "", "output file (default stdout)")
	flag.StringVar(&c.goroot, "goroot", "", "Go tree whose doc sentences are excluded (default: go env GOROOT)")
	flag.IntVar(&c.opt.maxWords, "max-words", 300, "code words kept per declaration")
	flag.IntVar(&c.opt.window, "window", 0, "lines per window of the comment-free Go file given with each Go pair (0 = none)")
	flag.IntVar(&c.opt.step, "step", 68, "lines between window starts")
	flag.IntVar(&c.opt.windowWords, "window-words", 600, "code words kept per window")
	flag.BoolVar(&c.opt.raw, "raw", false, "also give each code pair's comment-free declaration (raw)")
	flag.BoolVar(&c.verbose, "v", false, "print per-source counts on stderr")
	flag.Parse()
	c.kinds = map[string]bool{}
	for _, k := range strings.Split(*kinds, ",") {
		c.kinds[strings.TrimSpace(k)] = true
	}
	if err := run(c, *out); err != nil {
		fmt.Fprintln(os.Stderr, "pairs:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	goList, npmList, nodeModules, crateList, crateCache, evalDir, goroot string
	fetch, verbose                                                       bool
	kinds                                                                map[string]bool
	opt                                                                  options
}

func run(c config, outPath string) error {
	opt := c.opt
	if opt.maxWords < 1 || opt.window < 0 || opt.window > 0 && (opt.step < 1 || opt.step > opt.window) || opt.windowWords < 1 {
		return fmt.Errorf("bad options %+v: need max-words >= 1, window >= 0, 1 <= step <= window, window-words >= 1", opt)
	}
	mods, err := readList(c.goList)
	if err != nil {
		return err
	}
	npms, err := readSources(c.npmList, false)
	if err != nil {
		return err
	}
	crates, err := readSources(c.crateList, true)
	if err != nil {
		return err
	}
	goroot := c.goroot
	if goroot == "" {
		b, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %v", err)
		}
		goroot = strings.TrimSpace(string(b))
	}
	std, err := stdSentences(filepath.Join(goroot, "src"))
	if err != nil {
		return err
	}
	nq, err := evalQueries(c.evalDir, std)
	if err != nil {
		return err
	}
	var w io.Writer = os.Stdout
	if outPath != "" {
		f, err := os.Create(outPath)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	seen := map[[3]string]bool{}
	counts := map[string]int{}
	total, dropped := 0, 0
	emit := func(name, version string, pairs []pair) error {
		kept, drop, err := writePairs(bw, unseen(pairs, seen), std)
		if err != nil {
			return err
		}
		total += kept
		dropped += drop
		by := map[string]int{}
		for _, p := range pairs {
			by[p.Kind]++
		}
		for k, n := range by {
			counts[k] += n
		}
		if c.verbose {
			fmt.Fprintf(os.Stderr, "%-45s %-12s %6d pairs %v\n", name, version, kept, by)
		}
		return nil
	}
	for _, m := range mods {
		dir, err := download(m, c.fetch)
		if err != nil {
			return err
		}
		if err := checkLicence(dir, m); err != nil {
			return err
		}
		var pairs []pair
		if c.kinds["go"] {
			if pairs, err = modulePairs(m, dir, opt); err != nil {
				return err
			}
		}
		src := source{name: m.Path, version: m.Version, short: shortName(m.Path), raw: opt.raw}
		if pairs, err = appendKinds(pairs, c.kinds, src, dir, "md"); err != nil {
			return err
		}
		if err := emit(m.Path, m.Version, pairs); err != nil {
			return err
		}
	}
	for _, s := range npms {
		s.raw = opt.raw
		dir, err := npmDir(c.nodeModules, s)
		if err != nil {
			return err
		}
		pairs, err := appendKinds(nil, c.kinds, s, dir, "md", "js", "py")
		if err != nil {
			return err
		}
		if err := emit("npm:"+s.name, s.version, pairs); err != nil {
			return err
		}
	}
	for _, s := range crates {
		s.raw = opt.raw
		dir, err := crateDir(c.crateCache, s, c.fetch)
		if err != nil {
			return err
		}
		pairs, err := appendKinds(nil, c.kinds, s, dir, "md", "rs")
		if err != nil {
			return err
		}
		if err := emit("crate:"+s.name, s.version, pairs); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if c.verbose {
		fmt.Fprintf(os.Stderr, "pairs: %d pairs (%v before decontamination) from %d Go modules, %d npm packages, %d crates; "+
			"%d dropped as Go standard library doc sentences (%d known) or eval queries (%d)\n",
			total, counts, len(mods), len(npms), len(crates), dropped, len(std), nq)
	}
	return nil
}

// extractors read one kind of pair from a source directory.
var extractors = map[string]func(source, string) ([]pair, error){
	"md": mdPairs, "js": jsPairs, "py": pyPairs, "rs": rustPairs,
}

// appendKinds appends the pairs of each of kinds that is also selected.
func appendKinds(pairs []pair, selected map[string]bool, s source, dir string, kinds ...string) ([]pair, error) {
	for _, k := range kinds {
		if !selected[k] {
			continue
		}
		ps, err := extractors[k](s, dir)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", s.name, k, err)
		}
		pairs = append(pairs, ps...)
	}
	return pairs, nil
}

// unseen returns the pairs whose kind, query and passage are not in seen
// (a README shipped by two packages counts once), adding them.
func unseen(pairs []pair, seen map[[3]string]bool) []pair {
	var out []pair
	for _, p := range pairs {
		k := [3]string{p.Kind, p.Doc, p.Code}
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// evalQueries adds to set the comparison form of every query in the
// *queries.tsv files under dir (last tab-separated field of each line) and
// returns how many it read; a missing dir has none.
func evalQueries(dir string, set map[string]bool) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return filepath.SkipAll
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "queries.tsv") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Split(line, "\t")
			if q := normSentence(f[len(f)-1]); q != "" {
				set[q] = true
				n++
			}
		}
		return nil
	})
	return n, err
}

// writePairs writes pairs as JSON lines to w, leaving out those whose
// sentence (masked or not) is in std, and returns how many it wrote and
// left out.
func writePairs(w io.Writer, pairs []pair, std map[string]bool) (kept, dropped int, err error) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, p := range pairs {
		if std[normSentence(p.Doc)] || std[normSentence(p.Original)] {
			dropped++
			continue
		}
		if err := enc.Encode(p); err != nil {
			return kept, dropped, err
		}
		kept++
	}
	return kept, dropped, nil
}

// download returns the module's directory in the module cache, fetching it
// through the module proxy if it is not there yet (and fetch is true), and
// checks its hash.
func download(m module, fetch bool) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", m.Path+"@"+m.Version)
	cmd.Dir = os.TempDir() // outside any module: never touches a go.mod
	if !fetch {
		cmd.Env = append(os.Environ(), "GOPROXY=off")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct {
		Dir   string
		Sum   string
		Error string
	}
	if jerr := json.Unmarshal(out, &info); jerr != nil && err == nil {
		err = jerr
	}
	if info.Error != "" {
		err = errors.New(info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s (the module proxy is needed the first time): %v %s", m.Path, m.Version, err, strings.TrimSpace(stderr.String()))
	}
	if info.Sum != m.Sum {
		return "", fmt.Errorf("%s@%s: module hash %s, list pins %s", m.Path, m.Version, info.Sum, m.Sum)
	}
	return info.Dir, nil
}
