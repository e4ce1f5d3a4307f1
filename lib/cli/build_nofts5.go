//go:build !sqlite_fts5

package cli

// builtWithFTS5 is false in a build without `-tags sqlite_fts5` (what a
// plain `go install …@latest` gives): SQLite then lacks the FTS5 module the
// index needs, and every command refuses to start (see buildError).
const builtWithFTS5 = false
