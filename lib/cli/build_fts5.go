//go:build sqlite_fts5

package cli

// builtWithFTS5 reports whether SQLite was compiled with FTS5, which the
// index's keyword search needs (see build_nofts5.go).
const builtWithFTS5 = true
