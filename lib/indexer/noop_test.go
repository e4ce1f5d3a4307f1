package indexer

import (
	"context"
	"database/sql"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/store"
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
