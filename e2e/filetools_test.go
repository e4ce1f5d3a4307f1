//go:build unix

package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The agent's file tools (grep, find, exact reads, checksum) and paging,
// with the real binary over HTTP, on a corpus with hostile contents: a
// FIFO, symlinks out of the root and into the state directory, excluded
// secrets, a very long line, an archive.

// fileToolsCorpus copies the corpus and adds the hostile entries.
func fileToolsCorpus(t *testing.T) (dir, outside string) {
	t.Helper()
	dir = copyCorpus(t, "corpus")
	outside = t.TempDir()
	writeFile(t, filepath.Join(outside, "passwd"), "root:x:0:0:outside-the-root-marker\n")
	for _, l := range [][2]string{
		{filepath.Join(outside, "passwd"), "link-out.txt"},
		{outside, "dir-out"},
		{filepath.Join(dir, ".dir2mcp", "secret.token"), "link-token.txt"},
		{filepath.Join(dir, ".env"), "link-env.txt"},
	} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "notes", "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "notes", "long.txt"), "short first line\n"+strings.Repeat("a", 2<<20)+"\n"+strings.Repeat("a", 2<<20)+"b\nlast line\n")
	zip, err := os.ReadFile(filepath.Join("..", "testdata", "multimodal", "docs.zip"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "archive", "docs.zip"), string(zip))
	return dir, outside
}

// allPages calls tool with args, then again with each next_cursor, and
// returns every page.
func allPages[T any](t *testing.T, c *mcp, tool string, args map[string]any, next func(T) string) []T {
	t.Helper()
	var out []T
	for n := 0; ; n++ {
		var p T
		decode(t, c.tool(tool, args), &p)
		out = append(out, p)
		cur := next(p)
		if cur == "" {
			return out
		}
		if n == 100 {
			t.Fatalf("%s %.60v: no last page after 100", tool, args)
		}
		args["cursor"] = cur
	}
}

func (g grepResp) next() string { return g.NextCursor }

// fileToolsServer runs `up` on fileToolsCorpus and waits for the index.
func fileToolsServer(t *testing.T) (string, *proc, server, *mcp) {
	t.Helper()
	dir, _ := fileToolsCorpus(t)
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	srv := p.connect()
	c := newMCP(t, srv)
	c.initialize()
	p.wait("index_complete", 90*time.Second)
	return dir, p, srv, c
}

func decode(t *testing.T, r toolResult, out any) {
	t.Helper()
	if r.IsError {
		t.Fatalf("tool failed: %s", r.Content[0].Text)
	}
	if err := json.Unmarshal(r.StructuredContent, out); err != nil {
		t.Fatal(err)
	}
}

// errField returns the code and field of a failed call.
func (r toolResult) errField() (string, string) {
	var e struct {
		Error struct{ Code, Field string } `json:"error"`
	}
	json.Unmarshal(r.StructuredContent, &e)
	return e.Error.Code, e.Error.Field
}

type grepResp struct {
	Matches []struct {
		RelPath string `json:"rel_path"`
		Line    int    `json:"line"`
		Text    string `json:"text"`
		Clipped bool   `json:"clipped"`
	} `json:"matches"`
	FilesSearched   int    `json:"files_searched"`
	Truncated       bool   `json:"truncated"`
	TruncatedReason string `json:"truncated_reason"`
	NextCursor      string `json:"next_cursor"`
}

// leaks fails when a result holds content from outside the served set
// (the caller's own arguments echoed back aside).
func leaks(t *testing.T, what string, r toolResult, token string, args map[string]any) {
	t.Helper()
	raw := string(r.StructuredContent)
	for _, c := range r.Content {
		raw += c.Text
	}
	for _, v := range args {
		if s, ok := v.(string); ok && s != "" {
			b, _ := json.Marshal(s)
			raw = strings.ReplaceAll(strings.ReplaceAll(raw, string(b[1:len(b)-1]), ""), s, "")
		}
	}
	for _, bad := range []string{"hunter2", "AKIAIOSFODNN7EXAMPLE", "outside-the-root-marker", token} {
		if strings.Contains(raw, bad) {
			t.Errorf("%s: result holds %q", what, bad)
		}
	}
}

func TestGrepOverMCP(t *testing.T) {
	dir, _, srv, c := fileToolsServer(t)

	// Every line grep -n would print for a file, with the file's line numbers.
	var g grepResp
	decode(t, c.tool("dir2mcp.grep", map[string]any{"pattern": `\bEntry\b`, "path_prefix": "src/"}), &g)
	body, _ := os.ReadFile(filepath.Join(dir, "src", "ledger", "ledger.go"))
	var want []string
	word := regexp.MustCompile(`\bEntry\b`)
	for i, ln := range strings.Split(string(body), "\n") {
		if word.MatchString(ln) {
			want = append(want, fmt.Sprintf("src/ledger/ledger.go:%d:%s", i+1, ln))
		}
	}
	var got []string
	for _, m := range g.Matches {
		got = append(got, fmt.Sprintf("%s:%d:%s", m.RelPath, m.Line, m.Text))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) < 3 {
		t.Errorf("grep \\bEntry\\b:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Excluded files, the state dir, symlinks out of the root and the FIFO
	// are never read, whatever the glob or prefix says.
	for _, args := range []map[string]any{
		{"pattern": "hunter2"}, {"pattern": "AKIA"}, {"pattern": "outside-the-root"}, {"pattern": srv.token},
		{"pattern": ".", "glob": "../**"}, {"pattern": ".", "glob": "/etc/**"}, {"pattern": ".", "glob": "**/.dir2mcp/**"},
		{"pattern": ".", "glob": "**/.env"}, {"pattern": ".", "glob": "secrets/**"}, {"pattern": ".", "glob": "link-*"},
		{"pattern": ".", "path_prefix": ".dir2mcp"}, {"pattern": ".", "glob": "dir-out/**"}, {"pattern": ".", "glob": "notes/pipe.txt"},
	} {
		r := c.tool("dir2mcp.grep", args)
		var gr grepResp
		decode(t, r, &gr)
		if len(gr.Matches) != 0 {
			t.Errorf("grep %v matched %d lines: %+v", args, len(gr.Matches), gr.Matches[0])
		}
		leaks(t, fmt.Sprint(args), r, srv.token, args)
	}
	for _, prefix := range []string{"../", "/etc", "src/../../"} {
		if code, field := c.tool("dir2mcp.grep", map[string]any{"pattern": "x", "path_prefix": prefix}).errField(); code != "PATH_OUTSIDE_ROOT" || field != "path_prefix" {
			t.Errorf("path_prefix %q: %s on %s", prefix, code, field)
		}
	}

	// Hostile patterns: refused with the field named, or answered within
	// the time budget (5 s per call) with a cursor to continue.
	alts := make([]string, 0, 150)
	for i := range 150 {
		alts = append(alts, fmt.Sprintf("w%dx", i))
	}
	for _, c2 := range []struct {
		args  map[string]any
		code  string
		field string
	}{
		{map[string]any{"pattern": strings.Repeat("a", 100<<10)}, "INVALID_RANGE", "pattern"},
		{map[string]any{"pattern": `((a{100}){100}){100}`}, "INVALID_FIELD", "pattern"},
		{map[string]any{"pattern": `[a-z]{1000}\w{1000}`}, "INVALID_RANGE", "pattern"},
		{map[string]any{"pattern": "(unclosed"}, "INVALID_FIELD", "pattern"},
		{map[string]any{"pattern": `a\nb`}, "INVALID_FIELD", "pattern"},
		{map[string]any{"pattern": "x", "case": "shouty"}, "INVALID_FIELD", "case"},
		{map[string]any{"pattern": "x", "max_matches": 100000}, "INVALID_RANGE", "max_matches"},
		{map[string]any{"pattern": "x", "context": 11}, "INVALID_RANGE", "context"},
		{map[string]any{"pattern": "x", "glob": "!src/**"}, "INVALID_FIELD", "glob"},
	} {
		if code, field := c.tool("dir2mcp.grep", c2.args).errField(); code != c2.code || field != c2.field {
			t.Errorf("grep %.60v: %s on %s, want %s on %s", c2.args, code, field, c2.code, c2.field)
		}
	}
	for _, pat := range []string{`(a*)*b`, `(a|aa)*c$`, `(x+x+)+y`, strings.Join(alts, "|"), `[a-c]{1,200}b`} {
		lines := 0
		began := time.Now()
		for _, gr := range allPages(t, c, "dir2mcp.grep", map[string]any{"pattern": pat}, grepResp.next) {
			for _, m := range gr.Matches {
				if m.RelPath == "notes/long.txt" {
					lines++
					if len(m.Text) > 400 || !m.Clipped {
						t.Errorf("%.30s: a 2 MiB line came back %d bytes long", pat, len(m.Text))
					}
				}
			}
		}
		if wantLines := map[string]int{`(a*)*b`: 1, `[a-c]{1,200}b`: 1}[pat]; lines != wantLines {
			t.Errorf("%.30s: %d matching lines in long.txt, want %d", pat, lines, wantLines)
		}
		// Generous: a backtracking engine would take hours on these, and a
		// loaded 2-core machine pages the 2 MiB line in ~2 minutes.
		if d := time.Since(began); d > 4*time.Minute {
			t.Errorf("%.30s took %s", pat, d)
		}
	}

	// Paging: one line per page reaches what one page holds; a cursor is
	// refused when tampered with, reused by another tool or with other
	// arguments.
	var all grepResp
	decode(t, c.tool("dir2mcp.grep", map[string]any{"pattern": "(?i)ledger", "max_matches": 1000}), &all)
	var paged []string
	var cursors []string
	for _, gr := range allPages(t, c, "dir2mcp.grep", map[string]any{"pattern": "(?i)ledger", "max_matches": 2}, grepResp.next) {
		for _, m := range gr.Matches {
			paged = append(paged, fmt.Sprintf("%s:%d", m.RelPath, m.Line))
		}
		if gr.NextCursor != "" {
			if !gr.Truncated || gr.TruncatedReason != "max_matches" {
				t.Fatalf("page with a cursor: %+v", gr)
			}
			cursors = append(cursors, gr.NextCursor)
		}
	}
	var one []string
	for _, m := range all.Matches {
		one = append(one, fmt.Sprintf("%s:%d", m.RelPath, m.Line))
	}
	if strings.Join(paged, ",") != strings.Join(one, ",") || len(cursors) < 2 {
		t.Errorf("paged %v\nwant %v", paged, one)
	}
	checkCursorTampering(t, c, cursors[0])
	// A token budget cuts lines and says so.
	var cut grepResp
	decode(t, c.tool("dir2mcp.grep", map[string]any{"pattern": "(?i)ledger", "max_tokens": 60}), &cut)
	if !cut.Truncated || cut.TruncatedReason != "max_tokens" || len(cut.Matches) == 0 || len(cut.Matches) >= len(all.Matches) {
		t.Errorf("max_tokens: %d of %d lines, %q", len(cut.Matches), len(all.Matches), cut.TruncatedReason)
	}
}

// checkCursorTampering: a grep cursor (for pattern (?i)ledger, max 2)
// works only unaltered, for grep, with the same arguments.
func checkCursorTampering(t *testing.T, c *mcp, cur string) {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(cur)
	if err != nil {
		t.Fatalf("cursor is not base64url: %v", err)
	}
	flipped := func(i int) string {
		b := bytes.Clone(raw)
		b[i] ^= 0x20
		return base64.RawURLEncoding.EncodeToString(b)
	}
	base := map[string]any{"pattern": "(?i)ledger", "max_matches": 2}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	for name, call := range map[string]func() toolResult{
		"first byte flipped": func() toolResult { return c.tool("dir2mcp.grep", with(map[string]any{"cursor": flipped(0)})) },
		"middle byte flipped": func() toolResult {
			return c.tool("dir2mcp.grep", with(map[string]any{"cursor": flipped(len(raw) / 2)}))
		},
		"last byte flipped": func() toolResult {
			return c.tool("dir2mcp.grep", with(map[string]any{"cursor": flipped(len(raw) - 1)}))
		},
		"truncated": func() toolResult { return c.tool("dir2mcp.grep", with(map[string]any{"cursor": cur[:len(cur)/2]})) },
		"garbage":   func() toolResult { return c.tool("dir2mcp.grep", with(map[string]any{"cursor": "not-a-cursor!"})) },
		"huge": func() toolResult {
			return c.tool("dir2mcp.grep", with(map[string]any{"cursor": strings.Repeat("A", 1<<20)}))
		},
		"other pattern": func() toolResult {
			return c.tool("dir2mcp.grep", with(map[string]any{"cursor": cur, "pattern": "ledger"}))
		},
		"other glob": func() toolResult {
			return c.tool("dir2mcp.grep", with(map[string]any{"cursor": cur, "glob": "**/*.go"}))
		},
		"find":       func() toolResult { return c.tool("dir2mcp.find", map[string]any{"cursor": cur}) },
		"list_files": func() toolResult { return c.tool("dir2mcp.list_files", map[string]any{"cursor": cur}) },
		"search": func() toolResult {
			return c.tool("dir2mcp.search", map[string]any{"query": "(?i)ledger", "cursor": cur})
		},
	} {
		if code, field := call().errField(); code != "INVALID_FIELD" || field != "cursor" {
			t.Errorf("cursor %s: %s on %q, want INVALID_FIELD on cursor", name, code, field)
		}
	}
	// The page size may change between pages.
	if r := c.tool("dir2mcp.grep", with(map[string]any{"cursor": cur, "max_matches": 5})); r.IsError {
		t.Errorf("cursor with another max_matches: %s", r.Content[0].Text)
	}
}

func TestExactReadsChecksumsAndFind(t *testing.T) {
	dir, p, srv, c := fileToolsServer(t)

	blob, _ := os.ReadFile(filepath.Join(dir, "assets", "blob.bin"))
	var o struct {
		Content    string `json:"content"`
		Encoding   string `json:"encoding"`
		SizeBytes  int64  `json:"size_bytes"`
		EOF        bool   `json:"eof"`
		NextOffset *int64 `json:"next_offset"`
	}
	decode(t, c.tool("dir2mcp.open_file", map[string]any{"rel_path": "assets/blob.bin", "offset": 3, "length": 10}), &o)
	b, _ := base64.StdEncoding.DecodeString(o.Content)
	if o.Encoding != "base64" || !bytes.Equal(b, blob[3:13]) || o.SizeBytes != int64(len(blob)) {
		t.Errorf("binary range: %+v", o)
	}
	ledger, _ := os.ReadFile(filepath.Join(dir, "src", "ledger", "ledger.go"))
	o.NextOffset = nil
	decode(t, c.tool("dir2mcp.open_file", map[string]any{"rel_path": "src/ledger/ledger.go", "offset": 100, "length": 50}), &o)
	if o.Encoding != "utf-8" || o.Content != string(ledger[100:150]) || o.NextOffset == nil || *o.NextOffset != 150 {
		t.Errorf("text range: %+v", o)
	}
	for _, c2 := range []struct {
		args        map[string]any
		code, field string
	}{
		{map[string]any{"rel_path": "assets/blob.bin", "length": int64(1) << 40}, "INVALID_RANGE", "length"},
		{map[string]any{"rel_path": "assets/blob.bin", "offset": 1 << 30}, "INVALID_RANGE", "offset"},
		{map[string]any{"rel_path": "assets/blob.bin", "offset": -1}, "INVALID_RANGE", "offset"},
		{map[string]any{"rel_path": "notes/pipe.txt", "offset": 0}, "DOC_TYPE_UNSUPPORTED", "rel_path"},
		{map[string]any{"rel_path": "notes/pipe.txt"}, "DOC_TYPE_UNSUPPORTED", "rel_path"},
		{map[string]any{"rel_path": "link-out.txt", "offset": 0}, "PATH_OUTSIDE_ROOT", "rel_path"},
		{map[string]any{"rel_path": "link-token.txt", "offset": 0}, "FORBIDDEN", "rel_path"},
		{map[string]any{"rel_path": "link-env.txt", "offset": 0}, "FORBIDDEN", "rel_path"},
		{map[string]any{"rel_path": ".env", "offset": 0}, "FORBIDDEN", "rel_path"},
		{map[string]any{"rel_path": "secrets/creds.txt", "offset": 40, "length": 8}, "FORBIDDEN", "rel_path"},
		{map[string]any{"rel_path": ".dir2mcp/secret.token", "offset": 0}, "FORBIDDEN", "rel_path"},
	} {
		r := c.tool("dir2mcp.open_file", c2.args)
		if code, field := r.errField(); code != c2.code || field != c2.field {
			t.Errorf("open_file %v: %s on %s, want %s on %s", c2.args, code, field, c2.code, c2.field)
		}
		leaks(t, fmt.Sprint(c2.args), r, srv.token, c2.args)
	}

	var ck struct {
		SizeBytes int64             `json:"size_bytes"`
		Digests   map[string]string `json:"digests"`
	}
	decode(t, c.tool("dir2mcp.checksum", map[string]any{"rel_path": "src/ledger/ledger.go", "algorithms": []string{"sha256", "sha512", "md5", "sha1"}}), &ck)
	sum := sha256.Sum256(ledger)
	if ck.Digests["sha256"] != hex.EncodeToString(sum[:]) || len(ck.Digests["sha512"]) != 128 || len(ck.Digests["sha1"]) != 40 || ck.SizeBytes != int64(len(ledger)) {
		t.Errorf("checksum: %+v", ck)
	}
	decode(t, c.tool("dir2mcp.checksum", map[string]any{"rel_path": "archive/docs.zip!/docs/runbook.txt"}), &ck)
	if ck.SizeBytes != 89 || len(ck.Digests["sha256"]) != 64 {
		t.Errorf("member checksum: %+v", ck)
	}
	for rel, want := range map[string]string{"notes/pipe.txt": "DOC_TYPE_UNSUPPORTED", ".env": "FORBIDDEN", "link-out.txt": "PATH_OUTSIDE_ROOT",
		".dir2mcp/meta.sqlite": "FORBIDDEN", "../x": "PATH_OUTSIDE_ROOT", "nope": "FILE_NOT_FOUND"} {
		if code, _ := c.tool("dir2mcp.checksum", map[string]any{"rel_path": rel}).errField(); code != want {
			t.Errorf("checksum %s: %s, want %s", rel, code, want)
		}
	}

	type findResp struct {
		Total int `json:"total"`
		Files []struct {
			RelPath  string `json:"rel_path"`
			Size     int64  `json:"size_bytes"`
			MIMEType string `json:"mime_type"`
		} `json:"files"`
		NextCursor string `json:"next_cursor"`
	}
	var all findResp
	r := c.tool("dir2mcp.find", map[string]any{"sort": "size", "order": "desc", "limit": 1000})
	decode(t, r, &all)
	leaks(t, "find", r, srv.token, nil)
	for _, f := range all.Files {
		if strings.HasPrefix(f.RelPath, "link-") || f.RelPath == "notes/pipe.txt" || strings.HasPrefix(f.RelPath, "dir-out") ||
			f.RelPath == ".env" || f.RelPath == "secrets/creds.txt" || strings.HasPrefix(f.RelPath, ".dir2mcp") {
			t.Errorf("find lists %s", f.RelPath)
		}
	}
	for i := 1; i < len(all.Files); i++ {
		if all.Files[i].Size > all.Files[i-1].Size {
			t.Fatalf("not sorted by size desc at %d: %+v", i, all.Files[i-1:i+1])
		}
	}
	var paged []string
	for _, f := range allPages(t, c, "dir2mcp.find", map[string]any{"sort": "size", "order": "desc", "limit": 3}, func(f findResp) string { return f.NextCursor }) {
		for _, e := range f.Files {
			paged = append(paged, e.RelPath)
		}
	}
	var want []string
	for _, f := range all.Files {
		want = append(want, f.RelPath)
	}
	if strings.Join(paged, ",") != strings.Join(want, ",") {
		t.Errorf("find pages %v\nwant %v", paged, want)
	}
	for args, wantN := range map[string]int{
		`{"glob":"**/*.go"}`: 1, `{"glob":"../**"}`: 0, `{"glob":"/etc/*"}`: 0, `{"glob":"**/.dir2mcp/**"}`: 0,
		`{"mime":"text/markdown"}`: 3, `{"mime":"image/*"}`: 1, `{"doc_types":["code"],"max_size":100000}`: 2,
		`{"modified_since":"2999-01-01"}`: 0, `{"status":"skipped","glob":"assets/**"}`: 2,
	} {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		var f findResp
		decode(t, c.tool("dir2mcp.find", a), &f)
		if f.Total != wantN {
			var names []string
			for _, e := range f.Files {
				names = append(names, e.RelPath)
			}
			t.Errorf("find %s: %d files %v, want %d", args, f.Total, names, wantN)
		}
	}

	// list_files pages with a cursor; a file added before the cursor's
	// position does not shift the next page (keyset, not offset).
	type listResp struct {
		Files []struct {
			RelPath string `json:"rel_path"`
		} `json:"files"`
		NextCursor string `json:"next_cursor"`
	}
	var l1 listResp
	decode(t, c.tool("dir2mcp.list_files", map[string]any{"limit": 3}), &l1)
	writeFile(t, filepath.Join(dir, "AAA-new.md"), "# added while paging\n")
	p.wait("index_complete", 60*time.Second)
	var rest []string
	for _, l := range allPages(t, c, "dir2mcp.list_files", map[string]any{"limit": 3, "cursor": l1.NextCursor}, func(l listResp) string { return l.NextCursor }) {
		for _, e := range l.Files {
			rest = append(rest, e.RelPath)
		}
	}
	for _, f := range append(l1.Files, struct {
		RelPath string `json:"rel_path"`
	}{"AAA-new.md"}) {
		for _, r := range rest {
			if r == f.RelPath {
				t.Errorf("%s shown again after the first page", r)
			}
		}
	}
	if len(rest) == 0 || rest[0] <= l1.Files[len(l1.Files)-1].RelPath {
		t.Errorf("second page %v does not continue after %s", rest, l1.Files[len(l1.Files)-1].RelPath)
	}
	if code, field := c.tool("dir2mcp.list_files", map[string]any{"cursor": l1.NextCursor, "offset": 2}).errField(); code != "INVALID_FIELD" || field != "offset" {
		t.Errorf("cursor with offset: %s on %s", code, field)
	}
	if code, field := c.tool("dir2mcp.list_files", map[string]any{"cursor": l1.NextCursor, "glob": "*.md"}).errField(); code != "INVALID_FIELD" || field != "cursor" {
		t.Errorf("list cursor with another glob: %s on %s", code, field)
	}

	// search pages past k, never repeating a hit; max_tokens cuts hits.
	seen := map[int64]bool{}
	sargs := map[string]any{"query": "ledger entries reconcile", "k": 2}
	for n := 0; n < 20; n++ {
		var s struct {
			Hits       []hit  `json:"hits"`
			NextCursor string `json:"next_cursor"`
		}
		decode(t, c.tool("dir2mcp.search", sargs), &s)
		for _, h := range s.Hits {
			if seen[h.ChunkID] {
				t.Errorf("search page %d repeats chunk %d", n, h.ChunkID)
			}
			seen[h.ChunkID] = true
		}
		if s.NextCursor == "" {
			break
		}
		sargs["cursor"] = s.NextCursor
	}
	if len(seen) < 4 {
		t.Errorf("search pages reached %d hits", len(seen))
	}
	var sc struct {
		Hits        []hit `json:"hits"`
		Truncated   bool  `json:"truncated"`
		OmittedHits int   `json:"omitted_hits"`
	}
	decode(t, c.tool("dir2mcp.search", map[string]any{"query": "ledger entries reconcile", "k": 10, "max_tokens": 50}), &sc)
	if !sc.Truncated || sc.OmittedHits == 0 || len(sc.Hits) == 0 {
		t.Errorf("search max_tokens: %d hits, omitted %d", len(sc.Hits), sc.OmittedHits)
	}
	// open_file's budget.
	var ob struct {
		Content   string `json:"content"`
		Truncated bool   `json:"truncated"`
	}
	decode(t, c.tool("dir2mcp.open_file", map[string]any{"rel_path": "src/ledger/ledger.go", "max_tokens": 50}), &ob)
	if !ob.Truncated || len(ob.Content) > 200 {
		t.Errorf("open_file max_tokens: %d chars, truncated %v", len(ob.Content), ob.Truncated)
	}
}
