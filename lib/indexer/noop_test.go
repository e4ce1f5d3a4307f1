package indexer

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/scan"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

// A run over an unchanged tree writes no document row: unchanged,
// skipped (binary) and failed files are compared with the index and
// left as they are, whatever their number.
func TestNoOpRunWritesNoDocumentRows(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.md": "# A\n\nalpha beta\n", "src/b.go": "package b\n\nfunc B() {}\n",
		"bin/c.dat": "\x00\x01\x02\x03binary\x00", "docs/d.txt": "delta\n",
	})
	f.run(hasher(t, 64))
	// A trigger in the index file counts every insert or update of a
	// document row, whichever connection makes it.
	db, err := sql.Open("sqlite3", f.dir.Join(store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE doc_writes (rel_path TEXT)`,
		`CREATE TRIGGER doc_updated AFTER UPDATE ON documents BEGIN INSERT INTO doc_writes VALUES (new.rel_path); END`,
		`CREATE TRIGGER doc_inserted AFTER INSERT ON documents BEGIN INSERT INTO doc_writes VALUES (new.rel_path); END`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s := f.run(hasher(t, 64))
	if s.Unchanged != 3 || s.Skipped != 1 || s.Indexed != 0 {
		t.Fatalf("no-op run counters %+v", s)
	}
	var written []string
	rows, err := db.QueryContext(context.Background(), `SELECT rel_path FROM doc_writes`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p string
		rows.Scan(&p)
		written = append(written, p)
	}
	rows.Close()
	if len(written) > 0 {
		t.Errorf("a no-op run wrote document rows: %v", written)
	}
}

// A run ends by recording (Seal) that the vector files and the store
// agree. The next no-op run then neither reads the vector files nor
// changes the store's generation (which keeps the counts and search
// statistics derived from it); a run that writes vectors still verifies
// every segment first.
func TestNoOpRunTrustsSealedVectorFiles(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{"a.go": codeFile(30, "x"), "b.md": "# B\n\nprose\n"})
	f.run(hasher(t, 64))
	gen, err := f.st.Generation(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f.run(hasher(t, 64))
	if g, _ := f.st.Generation(ctx); g != gen {
		t.Errorf("a no-op run moved the generation %d -> %d", gen, g)
	}

	// Corrupt the code segment's vectors in place, keeping its size and
	// time: a no-op run does not read it.
	segDir := f.dir.Join(vector.SegmentDir(record.KindCode))
	ents, err := os.ReadDir(segDir)
	if err != nil || len(ents) != 1 {
		t.Fatalf("want 1 code segment, have %d (%v)", len(ents), err)
	}
	seg := filepath.Join(segDir, ents[0].Name())
	fi, _ := os.Stat(seg)
	b, _ := os.ReadFile(seg)
	b[len(b)-5] ^= 0xff
	if err := os.WriteFile(seg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(seg, fi.ModTime(), fi.ModTime())
	f.log.Reset()
	if s := f.run(hasher(t, 64)); s.Embedded != 0 || strings.Contains(f.log.String(), "dropped") {
		t.Fatalf("a no-op run read the sealed vector files: %+v\n%s", s, f.log.String())
	}
	if g, _ := f.st.Generation(ctx); g != gen {
		t.Errorf("a no-op run moved the generation %d -> %d", gen, g)
	}

	// A changed file: the run embeds, opens the files, finds the corrupt
	// segment and embeds its chunks again.
	code := f.counts().ChunksByKind[record.KindCode]
	writeFile(t, filepath.Join(f.root, "c.go"), codeFile(3, "y"))
	f.log.Reset()
	s := f.run(hasher(t, 64))
	if !strings.Contains(f.log.String(), "dropped") || s.Embedded < code {
		t.Errorf("the corrupt segment was not found when vectors were written (embedded %d, had %d code chunks):\n%s", s.Embedded, code, f.log.String())
	}
	ix, err := vector.Open(f.dir.Join(vector.FileName(record.KindCode)))
	if err != nil {
		t.Fatal(err)
	}
	if int64(ix.Len()) != f.counts().ChunksByKind[record.KindCode] {
		t.Errorf("index has %d vectors, store %d code chunks", ix.Len(), f.counts().ChunksByKind[record.KindCode])
	}
}

// States read ahead of a run (Preload) are used only while the store has
// not changed: a write in between makes the run read them again, so it
// compares with what is indexed.
func TestPreloadedStatesFollowTheStore(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{"a.md": "# A\n\nalpha\n", "b.txt": "beta\n"})
	f.run(hasher(t, 64))

	p := Preload(ctx, f.st)
	if k := p.take(ctx, f.st); len(k) != 2 {
		t.Fatalf("preloaded %d states of an unchanged store, want 2", len(k))
	}
	p = Preload(ctx, f.st)
	<-p.done
	writeFile(t, filepath.Join(f.root, "c.txt"), "gamma\n")
	f.run(hasher(t, 64)) // writes c.txt: a new generation
	if k := p.take(ctx, f.st); k != nil {
		t.Fatalf("states preloaded before a write were used (%d)", len(k))
	}

	// A run handed stale preloaded states still sees the store as it is.
	p = Preload(ctx, f.st)
	<-p.done
	os.Remove(filepath.Join(f.root, "c.txt"))
	f.run(hasher(t, 64)) // deletes c.txt
	prog := &Progress{}
	j := &Job{Config: f.cfg, Root: f.root, Dir: f.dir, Store: f.st, Embedders: hasher(t, 64), Progress: prog,
		Events: events.NewJSON(f.log), Preloaded: p}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if s := prog.Snapshot(); s.Unchanged != 2 || s.Deleted != 0 || s.Indexed != 0 {
		t.Errorf("run with stale preloaded states: %+v", s)
	}
}

var tsField = regexp.MustCompile(`"ts":"[^"]*",`)

// A document the writer would keep as it is (unchanged, stored) is
// accounted for by Keep exactly as the writer accounts for it at its
// commit: same counters, same file_error events in the same order, when
// Keep takes the documents before the first one queued and Run the rest.
func TestKeepAccountsAsTheWriter(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{
		"a.txt": "alpha\n", "b.zip": "PK\x03\x04 not really a zip", "c.bin": "\x00\x01\x02binary\x00",
		"d.md": "# D\n\ndelta\n", "e.zip": "PK\x03\x04 broken too", "f.txt": "phi\n",
	})
	f.run(hasher(t, 64))
	writeFile(t, filepath.Join(f.root, "d.md"), "# D\n\ndelta, changed\n")

	var docs []record.Document
	var known map[string]scan.Known
	_, err := Scan(ctx, f.cfg, ScanInput{Root: f.root, Dir: f.dir, Store: f.st, Loaded: func(k map[string]scan.Known) { known = k }},
		func(d record.Document) error { docs = append(docs, d); return nil })
	if err != nil {
		t.Fatal(err)
	}
	stored := func(d record.Document) bool {
		k, ok := known[d.RelPath]
		return ok && !k.Deleted && k.SizeBytes == d.SizeBytes && k.MtimeNs == d.MtimeNs
	}
	run := func(keep bool) (Snapshot, string) {
		var log bytes.Buffer
		p := &Progress{}
		x := &Extractor{Store: f.st, Config: f.cfg, Progress: p, Events: events.NewJSON(&log), Stored: stored}
		in := make(chan record.Document, len(docs))
		keeping := keep
		for _, d := range docs {
			if keeping && x.Keep(d) {
				continue
			}
			keeping = false
			in <- d
		}
		close(in)
		if err := x.Run(ctx, in); err != nil {
			t.Fatal(err)
		}
		return p.Snapshot(), tsField.ReplaceAllString(log.String(), "")
	}
	// The writer alone first: it stores d.md, which the second pass then
	// finds unchanged as well (both passes see the same records).
	want, wantEv := run(false)
	got, gotEv := run(true)
	if want.Errors == 0 || want.Unchanged == 0 || want.Skipped == 0 {
		t.Fatalf("fixture: %+v", want)
	}
	want.Indexed, got.Indexed = 0, 0 // d.md: written by the first pass only
	if got.Scanned != want.Scanned || got.Unchanged != want.Unchanged || got.Skipped != want.Skipped || got.Errors != want.Errors {
		t.Errorf("with Keep %+v, writer alone %+v", got, want)
	}
	if gotEv != wantEv {
		t.Errorf("events with Keep:\n%s\nwriter alone:\n%s", gotEv, wantEv)
	}
}
