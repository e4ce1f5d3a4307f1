package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/audit"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/mcpclient"
	"github.com/dir2mcp/dir2mcp/lib/mcphttp"
	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/tokens"
)

var update = flag.Bool("update", false, "rewrite testdata/searchwire.golden")

// wireToken is the owner's bearer token of the wire test; the server
// registers it as a secret, so a result that quotes it shows it masked.
const wireToken = "wire-owner-token-5f1c2a9e7b3d4c60"

// wireCorpus holds code and prose, credentials the index masks (a
// password, a GitHub token, URL credentials) and a private/ tree a scoped
// token may not see.
var wireCorpus = map[string]string{
	"README.md":        "# Ledger\n\nThe ledger keeps accounts & balances <in cents>.\n\n## Setup\n\nConnect with postgres://ledger:s3cretpass@db.local/ledger and set\npassword = hunter2hunter2 in the config.\n\nThe deploy token is ghp_0123456789abcdefghijABCDEFGHIJ012345 (rotate it).\n",
	"docs/guide.md":    "# Guide\n\n## Opening a file slice\n\nUse open_file with a line range to read the exact text a citation names.\nCitations look like [src/ledger.go:L17-L28].\n\n## Paging\n\nLong results continue with next_cursor: pass it back unchanged.\nEach page shows hits not shown before.\n",
	"docs/unicode.md":  "# Ünïcödé\n\nLine and paragraph separators: \u2028 and \u2029 stay as they are.\nQuotes \"double\" and 'single', tabs\tand backslashes \\ too.\n",
	"src/ledger.go":    "package ledger\n\n// Balance returns the balance of account in cents.\nfunc Balance(account string) (int64, error) {\n\tif account == \"\" {\n\t\treturn 0, errEmpty\n\t}\n\treturn lookup(account)\n}\n\n// Transfer moves amount cents from one account to another & records it.\nfunc Transfer(from, to string, amount int64) error {\n\tif amount <= 0 || from == to {\n\t\treturn errAmount\n\t}\n\treturn post(from, to, amount)\n}\n",
	"src/config.go":    "package ledger\n\n// Config holds the connection settings.\ntype Config struct {\n\tDSN      string // e.g. postgres://user:pass@host/db\n\tPassword string\n}\n\nvar defaultConfig = Config{DSN: \"postgres://app:app-password-1@localhost/ledger\"}\n",
	"private/notes.md": "# Private notes\n\nThe ledger balance audit is due in March.\nOnly the owner reads this file.\n",
}

// TestSearchWireGolden pins the exact bytes of search answers (and of a
// few other calls through the same controls) over Streamable HTTP, and
// the audit records they leave: masked credentials in snippets, queries
// and arguments, scoped tokens, paging, output budgets, errors. Run with
// -update to rewrite the golden file after an intended change.
func TestSearchWireGolden(t *testing.T) {
	events.RegisterSecret(wireToken)
	root := t.TempDir()
	for rel, body := range wireCorpus {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	dir := state.Resolve(root, t.TempDir())
	if err := dir.Ensure(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h, _ := hashing.New(256)
	embs := map[string]embed.Embedder{record.KindText: h, record.KindCode: h}
	cfg := config.Default()
	if err := (&indexer.Job{Config: cfg, Root: root, Dir: dir, Store: st, Embedders: embs}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	eng := retrieve.Open(st, dir, cfg, embs, time.Hour)
	t.Cleanup(eng.Close)
	eng.WaitLoaded()
	rfs, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := exclude.New(cfg.Security.PathExcludes, cfg.Security.SecretPatterns)
	if err != nil {
		t.Fatal(err)
	}
	al, err := audit.Open(audit.Options{Path: dir.Join(state.AuditLog), MaxBytes: cfg.Audit.MaxBytes, Keep: cfg.Audit.Keep})
	if err != nil {
		t.Fatal(err)
	}
	// A fixed cursor key: cursors are part of the pinned bytes.
	if err := os.WriteFile(dir.Join(state.CursorKeyFile), []byte(strings.Repeat("5a", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &mcpserver.Server{Engine: eng, Store: st, Root: rfs, Dir: dir, Exclude: ex, Config: cfg, Audit: al}
	tokPath := filepath.Join(dir.Path, "tokens.json")
	scoped, _, err := tokens.Add(tokPath, "docs-reader", []string{"dir2mcp.search", "dir2mcp.grep"}, []string{"docs/"}, time.Time{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tokens.NewRegistry(tokPath, filepath.Join(dir.Path, "tokens.used.json"))
	if err != nil {
		t.Fatal(err)
	}
	hd := mcphttp.New(s.MCP(), mcphttp.Options{Token: wireToken, Tokens: reg, Audit: al})
	srv := httptest.NewServer(hd)
	defer srv.Close()
	defer hd.Close()

	dial := func(token string) *mcpclient.Wire {
		w, err := mcpclient.DialWire(ctx, mcpclient.Options{URL: srv.URL + "/mcp", Token: token}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	owner, reader := dial(wireToken), dial(scoped)

	var out bytes.Buffer
	call := func(c *mcpclient.Wire, who, tool string, args string) string {
		answer, err := c.CallTool(ctx, tool, args)
		if err != nil {
			t.Fatalf("%s %s %s: %v", who, tool, args, err)
		}
		body := string(answer)
		fmt.Fprintf(&out, "=== %s %s %s\n%s\n", who, tool, args, body)
		return body
	}
	search := func(c *mcpclient.Wire, who, args string) string { return call(c, who, "dir2mcp.search", args) }

	search(owner, "owner", `{"query":"ledger balance in cents","k":5}`)
	search(owner, "owner", `{"query":"postgres password config","k":10}`)
	search(owner, "owner", `{"query":"deploy token rotate"}`)
	search(owner, "owner", `{"query":"password = hunter2hunter2","k":3}`)
	search(owner, "owner", `{"query":"where is `+wireToken+` used","k":3}`)
	search(owner, "owner", `{"query":"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY","k":2}`)
	search(owner, "owner", `{"query":"accounts & balances <in cents>","k":4}`)
	search(owner, "owner", `{"query":"line and paragraph separators \u2028 Ünïcödé","k":2}`)
	search(owner, "owner", `{"query":"zzqx nothing matches this qqzx","k":3,"index":"code"}`)
	first := search(owner, "owner", `{"query":"ledger","k":2}`)
	if cur := nextCursor(first); cur != "" {
		search(owner, "owner", `{"query":"ledger","k":2,"cursor":"`+cur+`"}`)
	}
	search(owner, "owner", `{"query":"open a file slice with a line range","k":5,"max_tokens":60}`)
	search(owner, "owner", `{"query":"guide","in":"title","k":3}`)
	search(owner, "owner", `{"query":"balance","path_prefix":"src/","file_glob":"*.go","doc_types":["code"],"k":3}`)
	search(owner, "owner", `{"query":"","k":3}`)
	search(owner, "owner", `{"query":"ledger","k":0}`)
	search(owner, "owner", `{"query":"ledger","colour":"blue"}`)
	search(owner, "owner", `{"query":"ledger","cursor":"not-a-cursor"}`)
	search(reader, "docs-reader", `{"query":"ledger balance audit","k":5}`)
	search(reader, "docs-reader", `{"query":"ledger","path_prefix":"private/"}`)
	call(reader, "docs-reader", "dir2mcp.open_file", `{"rel_path":"private/notes.md"}`)
	call(owner, "owner", "dir2mcp.open_file", `{"rel_path":"README.md","start_line":1,"end_line":9}`)
	call(owner, "owner", "dir2mcp.grep", `{"pattern":"password"}`)
	call(owner, "owner", "dir2mcp.list_files", `{"path_prefix":"docs/"}`)

	owner.Close()
	reader.Close()
	hd.Close()
	if err := al.Close(); err != nil {
		t.Fatal(err)
	}
	logged, err := os.ReadFile(dir.Join(state.AuditLog))
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString("=== audit\n")
	for _, ln := range strings.Split(strings.TrimSpace(string(logged)), "\n") {
		out.WriteString(normalizeAudit(ln) + "\n")
	}

	golden := filepath.Join("testdata", "searchwire.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		gotLines, wantLines := strings.Split(out.String(), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gotLines), len(wantLines)) {
			var g, w string
			if i < len(gotLines) {
				g = gotLines[i]
			}
			if i < len(wantLines) {
				w = wantLines[i]
			}
			if g != w {
				t.Fatalf("wire output differs from %s at line %d:\n got: %s\nwant: %s", golden, i+1, g, w)
			}
		}
	}
}

// auditVolatile are the audit fields that differ from run to run.
var auditVolatile = regexp.MustCompile(`"(time|session|duration_ms)":("[^"]*"|[0-9.e+-]+)`)

func normalizeAudit(ln string) string {
	return auditVolatile.ReplaceAllString(ln, `"$1":_`)
}

// nextCursor is the next_cursor of a search answer ("" if none).
func nextCursor(body string) string {
	var m struct {
		Result struct {
			StructuredContent struct {
				NextCursor string `json:"next_cursor"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(body), &m)
	return m.Result.StructuredContent.NextCursor
}
