package scan

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// writeTree creates files (slash paths → content) under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type result struct {
	docs  []record.Document
	by    map[string]record.Document
	stats Stats
	warns []string // "rel: msg"
}

func (r *result) paths() []string {
	var out []string
	for _, d := range r.docs {
		out = append(out, d.RelPath)
	}
	return out
}

// walk runs Walk and fails the test on error.
func walk(t testing.TB, opt Options) *result {
	t.Helper()
	r, err := tryWalk(opt)
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return r
}

func tryWalk(opt Options) (*result, error) {
	r := &result{by: map[string]record.Document{}}
	prev := opt.Warn
	opt.Warn = func(rel, msg string) {
		r.warns = append(r.warns, rel+": "+msg)
		if prev != nil {
			prev(rel, msg)
		}
	}
	st, err := Walk(context.Background(), opt, func(d record.Document) error {
		r.docs = append(r.docs, d)
		r.by[d.RelPath] = d
		return nil
	})
	r.stats = st
	return r, err
}

// knownFrom turns records into the Known map a state dir would hold.
func knownFrom(docs []record.Document) map[string]Known {
	k := map[string]Known{}
	for _, d := range docs {
		if d.Change == record.ChangeDeleted {
			continue
		}
		k[d.RelPath] = Known{SizeBytes: d.SizeBytes, MtimeNs: d.MtimeNs, ContentHash: d.ContentHash,
			Status: d.Status, Code: d.Code, Reason: d.Reason}
	}
	return k
}

// docsAs returns the records with Change set to change.
func (r *result) docsAs(change string) []record.Document {
	out := make([]record.Document, len(r.docs))
	for i, d := range r.docs {
		d.Change = change
		out[i] = d
	}
	return out
}
