package postings

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
)

// batch is one segment's worth of changes: rows added (or replaced) and
// ids deleted.
type batch struct {
	add []Doc
	del []int64
}

// buildSnapshot writes one segment per batch into dir and returns the
// snapshot of all of them.
func buildSnapshot(t testing.TB, dir string, batches []batch) *Snapshot {
	t.Helper()
	rt, err := newRowTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	defer rt.close()
	var segs []*segment
	for i, bt := range batches {
		b := newBuilder()
		var r tokRow
		for _, d := range bt.add {
			if err := rt.tokenize(&d, &r); err != nil {
				t.Fatal(err)
			}
			b.add(&r)
		}
		for _, id := range bt.del {
			b.remove(id)
		}
		path := filepath.Join(dir, fmt.Sprintf("%d.seg", i))
		if err := writeSegment(path, b.source()); err != nil {
			t.Fatal(err)
		}
		g, err := openSegment(path, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := g.verify(); err != nil {
			t.Fatal(err)
		}
		segs = append(segs, g)
	}
	return newSnapshot(segs, nil, &manifest{})
}

// ftsTable is an FTS5 table made like chunks_fts, the reference the index
// is compared with.
type ftsTable struct {
	db *sql.DB
}

func newFTSTable(t testing.TB) *ftsTable {
	t.Helper()
	db, err := sql.Open("sqlite3_dir2mcp", "file:"+filepath.Join(t.TempDir(), "ref.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE f USING fts5(path, title, body, content = '', contentless_delete = 1,
		tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'")`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE kinds(id INTEGER PRIMARY KEY, kind TEXT)`); err != nil {
		t.Fatal(err)
	}
	return &ftsTable{db: db}
}

func (f *ftsTable) apply(t testing.TB, bt batch) {
	t.Helper()
	for _, d := range bt.add {
		f.exec(t, "DELETE FROM f WHERE rowid = ?", d.ID)
		f.exec(t, "INSERT INTO f(rowid, path, title, body) VALUES (?, ?, ?, ?)", d.ID, d.Cols[ColPath], d.Cols[ColTitle], d.Cols[ColBody])
		f.exec(t, "INSERT OR REPLACE INTO kinds(id, kind) VALUES (?, ?)", d.ID, d.Kind)
	}
	for _, id := range bt.del {
		f.exec(t, "DELETE FROM f WHERE rowid = ?", id)
		f.exec(t, "DELETE FROM kinds WHERE id = ?", id)
	}
}

func (f *ftsTable) exec(t testing.TB, q string, args ...any) {
	t.Helper()
	if _, err := f.db.Exec(q, args...); err != nil {
		t.Fatal(err)
	}
}

// expr renders q as the FTS5 MATCH expression it stands for.
func expr(q Query) string {
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	var groups []string
	for _, g := range q.Groups {
		var ts []string
		for _, term := range g {
			ts = append(ts, quote(term))
		}
		groups = append(groups, "("+strings.Join(ts, " OR ")+")")
	}
	e := strings.Join(groups, " AND ")
	if q.Cols != 0 && q.Cols != AllColumns {
		var cs []string
		for c, name := range []string{"path", "title", "body"} {
			if q.Cols.Has(c) {
				cs = append(cs, name)
			}
		}
		e = "{" + strings.Join(cs, " ") + "} : (" + e + ")"
	}
	return e
}

// search runs q on the reference table: FTS5's bm25(), best first.
func (f *ftsTable) search(t testing.TB, q Query) []Hit {
	t.Helper()
	sqlq := `SELECT f.rowid, -bm25(f, ?, ?, ?) AS s FROM f JOIN kinds k ON k.id = f.rowid WHERE f MATCH ?`
	args := []any{q.Weights[0], q.Weights[1], q.Weights[2], expr(q)}
	if len(q.Kinds) > 0 {
		sqlq += " AND k.kind IN (" + strings.TrimSuffix(strings.Repeat("?,", len(q.Kinds)), ",") + ")"
		for _, k := range q.Kinds {
			args = append(args, k)
		}
	}
	sqlq += " ORDER BY s DESC, f.rowid ASC LIMIT ?"
	args = append(args, q.Limit)
	rows, err := f.db.QueryContext(context.Background(), sqlq, args...)
	if err != nil {
		t.Fatalf("%s: %v", expr(q), err)
	}
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.ID, &h.Score); err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}

// words is a small vocabulary with common and rare words, code-like
// identifiers and stemming variants.
var words = strings.Fields(`the read reader reads reading write writer file files open close buffer buffered
	error errors return returns returned index first last instance present byte bytes scanner scan
	ReadFileHeader read_file_header http server shutdown parse time layout json decoder stream tls
	handshake archive tar zip gzip compress compressed uncompressed data format io interface
	mutex lock unlock sync channel goroutine context deadline cancel timeout crème brûlée naïve
	x86_64 __init__ v1 v2 résumé Straße`)

// randomDoc makes a row of random words.
func randomDoc(r *rand.Rand, id int64) Doc {
	pick := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			// Skewed: early words are much more common.
			b.WriteString(words[int(float64(len(words))*r.Float64()*r.Float64())])
		}
		return b.String()
	}
	kind := "text"
	if r.Intn(3) == 0 {
		kind = "code"
	}
	return Doc{ID: id, Kind: kind, Cols: [numCols]string{
		"src/" + pick(1+r.Intn(2)) + ".go",
		pick(r.Intn(4)),
		pick(5 + r.Intn(60)),
	}}
}
