// Package corpora holds the public eval corpora of `make eval`: pinned
// inputs (Debian packages, npm packages, Go modules, the Go standard
// library), how each is materialised as a directory (and as masked
// variants), and the generators of the query sets over them. The eval
// harness (scripts/eval) and the set generator (scripts/evalsets) share it,
// so a corpus variant and the qrels computed on it always agree.
package corpora

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Orig is the variant every corpus has: its files as published.
const Orig = "orig"

// Corpus is one eval corpus.
type Corpus struct {
	Name string // directory under testdata/eval
	Pin  string // the pinned inputs, for the README and the table
	// fetch writes the orig files into dst.
	fetch func(c *Cache, dst string) error
	// masks rewrite a copy of orig in place into another variant. Masks keep
	// every file's line count, so line judgements hold in every variant.
	masks map[string]func(root string) error
	// build, if set, replaces fetch and masks (gostd uses its own generator).
	build func(c *Cache, variant, dst string) error
	// rev changes when fetch or a mask changes, invalidating cached copies.
	rev int
}

// Materialize returns the directory holding a variant of the corpus,
// building it under the cache on first use.
func (c *Cache) Materialize(co *Corpus, variant string) (string, error) {
	dst := filepath.Join(c.Dir, "corpora", fmt.Sprintf("%s-%s-r%d", co.Name, variant, co.rev))
	if co.Name == "gostd" {
		dst = filepath.Join(c.Dir, "corpora", fmt.Sprintf("gostd-%s-%s", goVersion(), variant))
	}
	if _, err := os.Stat(filepath.Join(dst, ".complete")); err == nil {
		return dst, nil
	}
	tmp := dst + ".tmp"
	os.RemoveAll(tmp)
	os.RemoveAll(dst)
	var err error
	switch {
	case co.build != nil:
		err = co.build(c, variant, tmp)
	case variant == Orig:
		err = co.fetch(c, tmp)
	default:
		mask := co.masks[variant]
		if mask == nil {
			return "", fmt.Errorf("corpus %s has no variant %q", co.Name, variant)
		}
		var orig string
		if orig, err = c.Materialize(co, Orig); err != nil {
			return "", err
		}
		c.logf("mask %s → %s", co.Name, variant)
		if err = copyTree(orig, tmp, func(rel string) bool { return rel != ".complete" }); err == nil {
			err = mask(tmp)
		}
	}
	if err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("corpus %s/%s: %w", co.Name, variant, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
		return "", err
	}
	return dst, os.Rename(tmp, dst)
}

// rewrite applies f to the content of every regular file under root whose
// path match accepts; f must keep the number of lines.
func rewrite(root string, match func(rel string) bool, f func(rel, text string) string) error {
	return walkFiles(root, match, func(rel, in string) error {
		out := f(rel, in)
		if out == in {
			return nil
		}
		if strings.Count(out, "\n") != strings.Count(in, "\n") {
			return fmt.Errorf("mask changed the line count of %s", rel)
		}
		return os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(out), 0o644)
	})
}

// stripMask is the mask that applies strip to every file ending in ext.
func stripMask(ext string, strip func(string) string) func(string) error {
	return func(root string) error {
		return rewrite(root, suffix(ext), func(_, text string) string { return strip(text) })
	}
}

// deleteEverywhere removes every occurrence of each text from the files
// under root ending in ext.
func deleteEverywhere(root, ext string, texts []string) error {
	var pairs []string
	seen := map[string]bool{}
	for _, t := range texts {
		if t != "" && !seen[t] {
			seen[t] = true
			pairs = append(pairs, t, "")
		}
	}
	r := strings.NewReplacer(pairs...)
	return rewrite(root, suffix(ext), func(_, text string) string { return r.Replace(text) })
}

// suffix matches paths ending in one of exts.
func suffix(exts ...string) func(string) bool {
	return func(rel string) bool {
		for _, e := range exts {
			if strings.HasSuffix(rel, e) {
				return true
			}
		}
		return false
	}
}

// walkFiles calls f with the slash path and content of every regular file
// under root whose path match accepts, in lexical order.
func walkFiles(root string, match func(rel string) bool, f func(rel, text string) error) error {
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !match(rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return f(rel, string(b))
	})
}
