package postings

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	_ "github.com/dir2mcp/dir2mcp/lib/store" // registers the sqlite3 driver with FTS5
)

// ftsTokens returns the tokens FTS5 stores for s in a table made like
// chunks_fts, in order.
func ftsTokens(t *testing.T, db *sql.DB, s string) []string {
	t.Helper()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "DELETE FROM f"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO f(rowid, body) VALUES (1, ?)", s); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, "SELECT term FROM v ORDER BY offset")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var term string
		if err := rows.Scan(&term); err != nil {
			t.Fatal(err)
		}
		out = append(out, term)
	}
	return out
}

func openFTS(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3_dir2mcp", "file:"+filepath.Join(t.TempDir(), "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE f USING fts5(body, tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'")`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// The tokenizer makes exactly FTS5's terms: stems, folded case and
// diacritics, '_' inside words, non-Latin scripts, long tokens.
func TestTokensMatchFTS5(t *testing.T) {
	db := openFTS(t)
	long := string(slices.Repeat([]byte("x"), 40000))
	for _, s := range []string{
		"Returns the index of the first instance of c in b",
		"ReadFileHeader read_file_header __init__ x86_64 v1.2.3",
		"Crème brûlée façade naïve ÆSIR Ǆ straße İstanbul",
		"日本語のテキスト 中文 한국어 русский текст Ελληνικά",
		"emoji 🙂 and symbols ©®™ – — … and tabs\tand\nnewlines",
		"running runs ran connection connections generalizations",
		long + " after",
		"",
	} {
		got, err := Tokens(s)
		if err != nil {
			t.Fatal(err)
		}
		want := ftsTokens(t, db, s)
		if !slices.Equal(got, want) {
			t.Errorf("Tokens(%.60q):\n got %.200q\nwant %.200q", s, fmt.Sprint(got), fmt.Sprint(want))
		}
	}
}
