// Command gopairs extracts training pairs for the local embedder's table
// fit from the Go modules pinned in scripts/distill/gomodules.txt: for every
// documented declaration, the first sentence of its doc comment with the
// identifier masked (the way the gostd eval masks its queries) and the
// words of the declaration with all comments removed (lib/embed/local
// CodeText of signature and body).
//
// The modules come from the Go module cache (`go mod download`, which needs
// the module proxy once). Pairs whose sentence also documents anything in
// $(go env GOROOT)/src are dropped, so the fit never sees the Go standard
// library's doc text. Output is JSON lines, one pair per line, in list
// order, then file path order, then source order: byte-identical run to run
// for the same list and Go toolchain.
//
// Usage: go run ./scripts/distill/gopairs [-list FILE] [-o FILE] [-v]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	list := flag.String("list", filepath.Join("scripts", "distill", "gomodules.txt"), "pinned module list: `path version h1-sum licence` per line")
	out := flag.String("o", "", "output file (default stdout)")
	goroot := flag.String("goroot", "", "Go tree whose doc sentences are excluded (default: go env GOROOT)")
	var opt options
	flag.IntVar(&opt.maxWords, "max-words", 300, "code words kept per declaration")
	flag.IntVar(&opt.window, "window", 0, "lines per window of the comment-free file given with each pair (0 = none)")
	flag.IntVar(&opt.step, "step", 68, "lines between window starts")
	flag.IntVar(&opt.windowWords, "window-words", 600, "code words kept per window")
	verbose := flag.Bool("v", false, "print per-module counts on stderr")
	flag.Parse()
	if err := run(*list, *out, *goroot, opt, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "gopairs:", err)
		os.Exit(1)
	}
}

func run(listPath, outPath, goroot string, opt options, verbose bool) error {
	if opt.maxWords < 1 || opt.window < 0 || opt.window > 0 && (opt.step < 1 || opt.step > opt.window) || opt.windowWords < 1 {
		return fmt.Errorf("bad options %+v: need max-words >= 1, window >= 0, 1 <= step <= window, window-words >= 1", opt)
	}
	mods, err := readList(listPath)
	if err != nil {
		return err
	}
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
	total, dropped := 0, 0
	for _, m := range mods {
		dir, err := download(m)
		if err != nil {
			return err
		}
		if err := checkLicence(dir, m); err != nil {
			return err
		}
		pairs, err := modulePairs(m, dir, opt)
		if err != nil {
			return err
		}
		kept, drop, err := writePairs(bw, pairs, std)
		if err != nil {
			return err
		}
		total += kept
		dropped += drop
		if verbose {
			fmt.Fprintf(os.Stderr, "%-45s %-10s %6d pairs\n", m.Path, m.Version, kept)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if verbose {
		fmt.Fprintf(os.Stderr, "gopairs: %d pairs from %d modules; %d dropped as Go standard library doc sentences (%d known)\n",
			total, len(mods), dropped, len(std))
	}
	return nil
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
// through the module proxy if it is not there yet, and checks its hash.
func download(m module) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", m.Path+"@"+m.Version)
	cmd.Dir = os.TempDir() // outside any module: never touches a go.mod
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
