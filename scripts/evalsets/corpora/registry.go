package corpora

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Corpora lists every eval corpus, in table order.
func Corpora() []*Corpus {
	return []*Corpus{goStd, fastify, pyDocs, pgDocs, manPages, pyStdlib, rustCrates, lodash, traefik}
}

// Sets lists every eval set, in table order.
func Sets() []*Set {
	return []*Set{symbolSet, packageSet, newcomerDocsSet, newcomerCodeSet, faqSet, headingSet, refSet, manSet,
		pyDocSet, pyIdentSet, rustDocSet, rustIdentSet, jsDocSet}
}

// ByName finds a corpus.
func ByName(name string) *Corpus {
	for _, c := range Corpora() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// The Go standard library of the running toolchain ($GOROOT/src without
// cmd/, testdata/, vendor/), materialised by scripts/gostd, which also made
// the gostd sets; "stripped" has every comment removed.
var goStd = &Corpus{
	Name: "gostd",
	Pin:  "the Go standard library of the toolchain running the eval (" + runtime.Version() + "; sets made with go1.26.8)",
	build: func(c *Cache, variant, dst string) error {
		args := []string{"run", "./scripts/gostd", "-root", filepath.Join(goRoot(), "src"),
			"-out", dst + ".sets", "-materialize", dst}
		switch variant {
		case "stripped":
			args = append(args, "-strip-comments")
		case Orig:
		default:
			return fmt.Errorf("unknown variant %q", variant)
		}
		defer os.RemoveAll(dst + ".sets")
		c.logf("materialize gostd/%s (scripts/gostd)", variant)
		return run(".", "go", args...)
	},
}

var symbolSet = &Set{
	Corpus: "gostd", Name: "symbol", Stem: "symbol.sample", Variants: []string{Orig, "stripped"},
	Query:    "the first sentence of an exported Go identifier's doc comment, identifier masked (scripts/gostd)",
	Relevant: "the file(s) declaring it (whole file)",
}

var packageSet = &Set{
	Corpus: "gostd", Name: "package", Stem: "package.sample", Variants: []string{Orig, "stripped"},
	Query:    "a package doc comment's first sentence without \"Package <name>\" (scripts/gostd)",
	Relevant: "the file with the package comment (grade 2), the package's other files (grade 1)",
}

func goRoot() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return runtime.GOROOT()
}

func goVersion() string {
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return runtime.Version()
}

// fastify@5.12.8 as published on npm: every file of the tarball.
var fastify = &Corpus{
	Name: "fastify",
	Pin:  "npm fastify@5.12.8 (every file of the tarball)",
	rev:  1,
	fetch: func(c *Cache, dst string) error {
		return c.extractNpm(npmPkg{"fastify", "5.12.8", "459048aabd9311309f4f95b36e8ca065e3a4613ded292bcf50442926931e4748"}, dst)
	},
}

// The hand-written newcomer sets (testdata/eval/fastify/README.md; made by
// reading the package before any search, not by scripts/evalsets).
var (
	newcomerDocsSet = &Set{
		Corpus: "fastify", Name: "newcomer-docs", Variants: []string{Orig},
		Query:    "a newcomer's question answered in the markdown docs, hand-written from reading the package first",
		Relevant: "the answering lines, graded (2 best span, 1 also answers)",
	}
	newcomerCodeSet = &Set{
		Corpus: "fastify", Name: "newcomer-code", Variants: []string{Orig},
		Query:    "a newcomer's question answered in the code (lib/*.js, fastify.js, types/*.d.ts), hand-written",
		Relevant: "the answering lines, graded (2 best span, 1 also answers)",
	}
)
