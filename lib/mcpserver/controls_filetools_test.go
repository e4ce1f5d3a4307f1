package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The operator's controls over the agent tools: exact reads mask a file
// before cutting a range, grep searches masked text, and grep, find,
// checksum, exact reads and the pages of list_files and search stay in
// the caller's scope.

// readAll reads rel with exact reads of n bytes from offset 0 to the end,
// through the controls, and returns the bytes joined (base64 decoded) and
// the redactions the reads reported.
func readAll(t *testing.T, cs *mcp.ClientSession, rel string, n int) ([]byte, int) {
	t.Helper()
	var all []byte
	masked := 0
	for off := 0; ; {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dir2mcp.open_file",
			Arguments: map[string]any{"rel_path": rel, "offset": off, "length": n}})
		if err != nil || r.IsError {
			t.Fatalf("read %s at %d: %v %+v", rel, off, err, r)
		}
		var out struct {
			Content, Encoding string
			Length            int
			EOF               bool
			Redactions        int
		}
		b, _ := json.Marshal(r.StructuredContent)
		json.Unmarshal(b, &out)
		data := []byte(out.Content)
		if out.Encoding == encBase64 {
			data, _ = base64.StdEncoding.DecodeString(out.Content)
		}
		if len(data) != out.Length {
			t.Fatalf("read %s at %d: %d bytes, length says %d (%q)", rel, off, len(data), out.Length, out.Content)
		}
		all = append(all, data...)
		masked += out.Redactions
		off += len(data)
		if out.EOF {
			return all, masked
		}
	}
}

// fragments are the 6-byte pieces of a secret: a read must show none.
func fragments(secret string) []string {
	var out []string
	for i := 0; i+6 <= len(secret); i++ {
		out = append(out, secret[i:i+6])
	}
	return out
}

// A key cut in two by consecutive exact reads shows in neither: the file
// is masked whole (same length, so offsets hold) before each range is cut.
func TestExactReadsMaskBeforeCutting(t *testing.T) {
	pemBody := "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
	body := "# Notes\nkey: " + fakeKey + "\npassword=hunter2xyz\n-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "\n-----END RSA PRIVATE KEY-----\nlast line\n"
	bin := "\x00\x01\x02key " + fakeKey + "\x00\xff"
	s := indexedServer(t, map[string]string{"notes.md": body, "blob.bin": bin}, nil)
	cs := connect(t, s)
	for _, c := range []struct {
		rel, body string
		secrets   []string
	}{
		{"notes.md", body, []string{fakeKey[8:], "hunter2xyz", pemBody}},
		{"blob.bin", bin, []string{fakeKey[8:]}},
	} {
		whole, _ := s.redact.MaskBytes([]byte(c.body))
		for _, n := range []int{7, 13, len(c.body)} {
			got, masked := readAll(t, cs, c.rel, n)
			if string(got) != string(whole) {
				t.Errorf("%s in reads of %d: %q, want the file masked whole %q", c.rel, n, got, whole)
			}
			if masked < len(c.secrets) {
				t.Errorf("%s in reads of %d: %d redactions reported", c.rel, n, masked)
			}
			for _, secret := range c.secrets {
				for _, f := range fragments(secret) {
					if strings.Contains(string(got), f) {
						t.Errorf("%s in reads of %d shows %q of a credential", c.rel, n, f)
					}
				}
			}
		}
	}
}

// grep matches the text the index holds, masked: a credential, or any
// piece of it, is not found, so grep cannot be used to guess one a
// character at a time; HTML, read again from the file, is masked as the
// index masked it.
func TestGrepSearchesMaskedText(t *testing.T) {
	files := map[string][]byte{
		"guide.html": []byte("<html><body>\n<p>The walrus deploy uses the key <code>" + fakeKey + "</code> daily.</p>\n</body></html>\n"),
		"notes.md":   []byte("# Walrus notes\n\nwalrus key: " + fakeKey + "\n"),
		"deploy.go":  []byte("package deploy\n\n// walrus database\nconst walrusDSN = \"postgres://walrus:Pg5ecr3tW0rd@db/walrus\"\n"),
	}
	_, cs, _ := newCiteServer(t, files)
	grep := func(args map[string]any) grepOut {
		t.Helper()
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dir2mcp.grep", Arguments: args})
		if err != nil || r.IsError {
			t.Fatalf("grep %v: %v %+v", args, err, r)
		}
		var out grepOut
		b, _ := json.Marshal(r.StructuredContent)
		json.Unmarshal(b, &out)
		return out
	}
	for _, p := range []string{fakeKey, fakeKey[:12], fakeKey[8:14], "Zx8Cv7", "Pg5ecr3t", "walrus:Pg5"} {
		if out := grep(map[string]any{"pattern": p, "literal": true}); len(out.Matches) != 0 {
			t.Errorf("grep %q finds %+v", p, out.Matches)
		}
	}
	if out := grep(map[string]any{"pattern": `sk-proj-\w{4}`}); len(out.Matches) != 0 {
		t.Errorf("grep for the key's shape finds %+v", out.Matches)
	}
	out := grep(map[string]any{"pattern": "walrus", "case": "insensitive"})
	files2 := map[string]bool{}
	for _, m := range out.Matches {
		files2[m.RelPath] = true
		if strings.Contains(m.Text, "Zx8Cv7") || strings.Contains(m.Text, "Pg5ecr3t") {
			t.Errorf("%s:%d shows a credential: %q", m.RelPath, m.Line, m.Text)
		}
	}
	if len(files2) != 3 {
		t.Errorf("walrus found in %v, want all three files", files2)
	}
}

// grep, find, checksum, exact reads and the pages of list_files and
// search name and read only files within the caller's scope; a cursor
// serves only the caller it was issued to.
func TestFileToolsStayInScope(t *testing.T) {
	files := map[string][]byte{
		"docs/a.md":     []byte("# Walrus A\n\nwalrus alpha notes\n"),
		"docs/b.md":     []byte("# Walrus B\n\nwalrus beta notes\n"),
		"docs/c.md":     []byte("# Walrus C\n\nwalrus gamma notes\n"),
		"src/walrus.go": []byte("package walrus\n\n// walrus code\nfunc Walrus() {}\n"),
		"src/other.go":  []byte("package walrus\n\n// walrus other\nfunc Other() {}\n"),
	}
	s, _, _ := newCiteServer(t, files)
	scope := &corpus.Scope{Label: "docs", PathPrefixes: []string{"docs/"}}
	call := func(sc *corpus.Scope, tool string, args map[string]any, out any) string {
		t.Helper()
		label := "owner"
		if sc != nil {
			label = sc.Label
		}
		r := scopedCall(t, s, label, sc, tool, args)
		b, _ := json.Marshal(r.StructuredContent)
		json.Unmarshal(b, out)
		return codeOf(t, r)
	}
	inScope := func(what, rel string) {
		t.Helper()
		if !strings.HasPrefix(rel, "docs/") {
			t.Errorf("%s names %s, outside the scope", what, rel)
		}
	}
	for _, args := range []map[string]any{{"pattern": "walrus", "case": "insensitive"}, {"pattern": "func", "path_prefix": "src/"}, {"pattern": "walrus", "glob": "**/*.go"}} {
		var g grepOut
		if code := call(scope, "dir2mcp.grep", args, &g); code != "" {
			t.Fatalf("grep %v: %s", args, code)
		}
		for _, m := range g.Matches {
			inScope("grep", m.RelPath)
		}
	}
	var g struct {
		Matches []struct {
			RelPath string `json:"rel_path"`
		}
		FilesSearched int `json:"files_searched"`
	}
	call(scope, "dir2mcp.grep", map[string]any{"pattern": "walrus", "case": "insensitive"}, &g)
	if len(g.Matches) == 0 || g.FilesSearched != 3 {
		t.Errorf("grep in docs/: %d matches, %d files searched (want 3)", len(g.Matches), g.FilesSearched)
	}
	for _, args := range []map[string]any{{}, {"glob": "**/*.go"}, {"path_prefix": "src/"}, {"sort": "size", "order": "desc"}} {
		var f findResult
		call(scope, "dir2mcp.find", args, &f)
		for _, e := range f.Files {
			inScope("find", e.RelPath)
		}
		if _, all := args["sort"]; all && f.Total != 3 {
			t.Errorf("find in docs/: total %d", f.Total)
		}
	}
	var none any
	for tool, args := range map[string]map[string]any{
		"dir2mcp.checksum":  {"rel_path": "src/walrus.go"},
		"dir2mcp.open_file": {"rel_path": "src/walrus.go", "offset": 0, "length": 16},
	} {
		if code := call(scope, tool, args, &none); code != "OUT_OF_SCOPE" {
			t.Errorf("%s %v: %q", tool, args, code)
		}
	}
	args := map[string]any{"rel_path": "docs/../src/walrus.go", "offset": 3}
	if code := call(scope, "dir2mcp.open_file", args, &none); code != "OUT_OF_SCOPE" {
		t.Errorf("open_file %v: %q", args, code)
	}
	// Pages: list_files and search page by page stay inside docs/.
	paths := func(tool string, args map[string]any) []string {
		t.Helper()
		var got []string
		for cursor := ""; len(got) < 20; {
			var page struct {
				Files, Hits []struct {
					RelPath string `json:"rel_path"`
				}
				NextCursor string `json:"next_cursor"`
			}
			args["cursor"] = cursor
			if code := call(scope, tool, args, &page); code != "" {
				t.Fatalf("%s page: %s", tool, code)
			}
			for _, f := range append(page.Files, page.Hits...) {
				inScope(tool, f.RelPath)
				got = append(got, f.RelPath)
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		return got
	}
	if got := paths("dir2mcp.list_files", map[string]any{"limit": 1}); len(got) != 3 {
		t.Errorf("list_files in docs/ paged through %v", got)
	}
	if got := paths("dir2mcp.search", map[string]any{"query": "walrus", "k": 1}); len(got) == 0 {
		t.Error("search in docs/ found nothing")
	}
	// The owner's cursor does not serve the scoped caller.
	var owner listResult
	call(nil, "dir2mcp.list_files", map[string]any{"limit": 1}, &owner)
	if owner.NextCursor == "" {
		t.Fatal("owner's listing has one page")
	}
	if code := call(scope, "dir2mcp.list_files", map[string]any{"limit": 1, "cursor": owner.NextCursor}, &none); code != "INVALID_FIELD" {
		t.Errorf("the owner's cursor with a scoped token: %q", code)
	}
}

// list_files excluded=true pages with cursors like the plain listing,
// names the files indexing excluded and those the current path excludes
// hide (indexed before the rule was added) with the rule, and its cursor
// does not continue the plain listing.
func TestListExcludedPages(t *testing.T) {
	files := map[string]string{"docs/a.md": "a\n", "docs/b.md": "b\n", "keys/old.pem": "pem\n", "secret/d.txt": "d\n", "z/e.txt": "e\n"}
	s, _ := newIndexedServer(t, files, map[string]string{"secret/d.txt": "SECRET_EXCLUDED"})
	list := func(args map[string]any) (listResult, string) {
		t.Helper()
		r := scopedCall(t, s, "owner", nil, "dir2mcp.list_files", args)
		var l listResult
		b, _ := json.Marshal(r.StructuredContent)
		json.Unmarshal(b, &l)
		return l, codeOf(t, r)
	}
	var got []string
	rules := map[string]string{}
	cursor := ""
	for {
		args := map[string]any{"excluded": true, "limit": 1}
		if cursor != "" {
			args["cursor"] = cursor
		}
		l, code := list(args)
		if code != "" || l.Total != 2 {
			t.Fatalf("excluded page: %s %+v", code, l)
		}
		for _, f := range l.Files {
			got = append(got, f.RelPath)
			rules[f.RelPath] = f.Rule
		}
		if cursor = l.NextCursor; cursor == "" {
			break
		}
		if _, code := list(map[string]any{"limit": 1, "cursor": cursor}); code != "INVALID_FIELD" {
			t.Errorf("an excluded listing's cursor continues the plain listing: %q", code)
		}
	}
	if strings.Join(got, ",") != "keys/old.pem,secret/d.txt" || rules["keys/old.pem"] != `security.path_excludes "**/*.pem"` {
		t.Errorf("excluded = %v, rules %v", got, rules)
	}
	plain, _ := list(map[string]any{})
	for _, f := range plain.Files {
		if f.RelPath == "keys/old.pem" || f.RelPath == "secret/d.txt" || f.Rule != "" {
			t.Errorf("the plain listing shows %+v", f)
		}
	}
	if plain.Total != 3 {
		t.Errorf("plain listing total %d", plain.Total)
	}
}
