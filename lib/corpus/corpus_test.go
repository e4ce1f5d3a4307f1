package corpus

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/archive"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// newAccess builds an Access over a temp root holding files, with the
// given documents recorded in a real index (rel_path → error code, "" =
// indexed fine).
func newAccess(t *testing.T, files map[string]string, docs map[string]string) *Access {
	t.Helper()
	root := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	dir := state.Resolve(root, "")
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	err = st.Update(ctx, func(tx *store.Tx) error {
		for rel, code := range docs {
			d := record.NewDocument()
			d.RelPath, d.DocType, d.Status = rel, record.DocText, record.StatusOK
			if code != "" {
				d.Status, d.Code = record.StatusSkipped, code
			}
			if _, err := tx.UpsertDocument(d, ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	ex, err := exclude.New(append(cfg.Security.PathExcludes, "private/**"), cfg.Security.SecretPatterns)
	if err != nil {
		t.Fatal(err)
	}
	return &Access{Root: r, StateDir: dir.Path, Exclude: ex, Store: st, Archives: archive.Limits{MaxDepth: 2, MaxMembers: 100, MaxTotalBytes: 1 << 20, MaxMemberBytes: 1 << 20}}
}

func writeZip(t *testing.T, path string, members map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := zip.NewWriter(f)
	for name, body := range members {
		m, _ := w.Create(name)
		m.Write([]byte(body))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// Paths a client may not read are refused with the spec's codes, whatever
// spelling reaches them.
func TestOpenRefusesWhatIsNotServed(t *testing.T) {
	a := newAccess(t, map[string]string{
		"ok.txt": "fine", ".dir2mcp.yaml": "mistral: {api_key: x}", "private/notes.txt": "p", "creds.pdf": "%PDF", "bundle.txt": "b",
	}, map[string]string{"ok.txt": "", "creds.pdf": string(errcode.SecretExcluded), "bundle.txt": "", "bundle.txt!/key.txt": string(errcode.SecretExcluded)})
	ctx := context.Background()
	for rel, want := range map[string]errcode.Code{
		"../etc/passwd":                  errcode.PathOutsideRoot,
		"%2e%2e/etc/passwd":              errcode.PathOutsideRoot,
		"missing.txt":                    errcode.FileNotFound,
		".dir2mcp/meta.sqlite":           errcode.Forbidden, // the state directory
		".dir2mcp.yaml":                  errcode.Forbidden, // the config file
		"private/notes.txt":              errcode.Forbidden, // security.path_excludes
		"./private/../private/notes.txt": errcode.Forbidden,
		"creds.pdf":                      errcode.Forbidden, // excluded for its derived text
		"bundle.txt":                     errcode.Forbidden, // holds an excluded member
	} {
		if _, err := a.Open(ctx, rel); errcode.Of(err) != want {
			t.Errorf("Open(%q) = %v, want %s", rel, err, want)
		}
	}
	tg, err := a.Open(ctx, "./ok.txt")
	if err != nil || tg.Rel != "ok.txt" || !tg.Known || tg.DocType != record.DocText {
		t.Fatalf("Open(./ok.txt) = %+v, %v", tg, err)
	}
}

// An archive member is read from inside its archive, within the caps,
// and checked against the excludes by its own name too.
func TestMembersAreReadAndChecked(t *testing.T) {
	a := newAccess(t, map[string]string{}, nil)
	writeZip(t, filepath.Join(a.Root.Dir(), "docs.zip"), map[string]string{"a/readme.md": "# hello\n", "a/private/x.txt": "p"})
	ctx := context.Background()
	tg, err := a.Open(ctx, archive.Join("docs.zip", "a/readme.md"))
	if err != nil || tg.ArchiveRel != "docs.zip" || tg.Member != "a/readme.md" || tg.Known {
		t.Fatalf("member target = %+v, %v", tg, err)
	}
	data, cut, err := a.Read(ctx, &tg, 4)
	if err != nil || string(data) != "# he" || !cut || tg.DocType != record.DocMarkdown {
		t.Fatalf("Read = %q cut=%v type=%q err=%v", data, cut, tg.DocType, err)
	}
	if _, err := a.Open(ctx, archive.Join("docs.zip", "../../x")); errcode.Of(err) != errcode.InvalidField {
		t.Errorf("member path escaping the archive: %v", err)
	}
	if _, err := a.Open(ctx, archive.Join("docs.zip", "private/x.txt")); errcode.Of(err) != errcode.Forbidden {
		t.Errorf("excluded member name: %v", err)
	}
}

// Listings never name files excluded for security, at indexing time or by
// the current rules; secret content is refused.
func TestListableAndSecrets(t *testing.T) {
	a := newAccess(t, nil, nil)
	for _, c := range []struct {
		rel, code string
		want      bool
	}{
		{"a.txt", "", true}, {"b.bin", string(errcode.BinarySkipped), true},
		{"c.txt", string(errcode.SecretExcluded), false}, {"d.txt", string(errcode.PathExcluded), false},
		{"private/e.txt", "", false},
	} {
		if got := a.Listable(c.rel, c.code); got != c.want {
			t.Errorf("Listable(%s, %q) = %v", c.rel, c.code, got)
		}
	}
	if err := a.CheckSecret("k.txt", []byte("aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n")); errcode.Of(err) != errcode.Forbidden {
		t.Errorf("AWS key id: %v", err)
	}
	if err := a.CheckSecret("k.txt", []byte("nothing here")); err != nil {
		t.Errorf("plain text: %v", err)
	}
}

func TestScopeNarrowsOpen(t *testing.T) {
	a := newAccess(t, map[string]string{"docs/a.md": "# A\n", "src/b.go": "package b\n"}, nil)
	ctx := WithScope(context.Background(), &Scope{Label: "docs-only", PathPrefixes: []string{"docs/"}})
	if _, err := a.Open(ctx, "docs/a.md"); err != nil {
		t.Fatalf("in scope: %v", err)
	}
	if _, err := a.Open(ctx, "src/b.go"); errcode.Of(err) != errcode.OutOfScope {
		t.Fatalf("out of scope: got %v, want OUT_OF_SCOPE", err)
	}
	if _, err := a.Open(context.Background(), "src/b.go"); err != nil {
		t.Fatalf("no scope: %v", err)
	}
	s := &Scope{PathPrefixes: []string{"docs", "README.md"}, Tools: []string{"dir2mcp.search"}}
	for rel, want := range map[string]bool{"docs/x": true, "docs": true, "docsx/y": false, "README.md": true, "README.md.bak": false, "docs/a.zip!/m.txt": true, "src/a.zip!/docs/m": false} {
		if got := s.AllowsPath(rel); got != want {
			t.Errorf("AllowsPath(%q) = %v, want %v", rel, got, want)
		}
	}
	if !s.AllowsTool("dir2mcp.search") || s.AllowsTool("dir2mcp.open_file") || !(*Scope)(nil).AllowsTool("x") {
		t.Error("AllowsTool")
	}
}

// A symlink inside the root is judged by what it resolves to too: a link
// to an excluded file, the config file or the state directory is refused.
func TestSymlinksAreJudgedByTheirTarget(t *testing.T) {
	a := newAccess(t, map[string]string{".env": "PASSWORD=hunter2", "private/p.txt": "p", ".dir2mcp.yaml": "version: 1", "ok.txt": "fine"}, nil)
	root := a.Root.Dir()
	for link, target := range map[string]string{"env-link": ".env", "priv-link": "private/p.txt", "cfg-link": ".dir2mcp.yaml",
		"state-link": filepath.Join(a.StateDir, "meta.sqlite"), "ok-link": "ok.txt", "privdir": "private"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	for rel, want := range map[string]errcode.Code{"env-link": errcode.Forbidden, "priv-link": errcode.Forbidden, "cfg-link": errcode.Forbidden,
		"state-link": errcode.Forbidden, "privdir/p.txt": errcode.Forbidden, "ok-link": ""} {
		if _, err := a.Open(ctx, rel); errcode.Of(err) != want && !(want == "" && err == nil) {
			t.Errorf("Open(%s) = %v, want %s", rel, err, want)
		}
	}
}

// Reads are bounded: with every read slot held (an open stream), a read
// waits, and its deadline passing is a retryable TIMEOUT; a cancelled
// read is its context's error; a closed stream frees its slot.
func TestReadsAreBounded(t *testing.T) {
	a := newAccess(t, map[string]string{"a.txt": "alpha", "b.txt": "beta"}, map[string]string{"a.txt": "", "b.txt": ""})
	a.MaxReads = 1
	ctx := context.Background()
	ta, err := a.Open(ctx, "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	rc, _, err := a.Stream(ctx, &ta)
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := a.Open(ctx, "b.txt")
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, _, err := a.Read(short, &tb, 0); errcode.Of(err) != errcode.Timeout || !errcode.As(err).Retryable {
		t.Errorf("read with every slot busy = %v, want a retryable TIMEOUT", err)
	}
	gone, stop := context.WithCancel(ctx)
	stop()
	if _, err := a.ReadRange(gone, &tb, 0, 2); err != context.Canceled {
		t.Errorf("cancelled read = %v", err)
	}
	rc.Close()
	if b, _, err := a.Read(ctx, &tb, 0); err != nil || string(b) != "beta" {
		t.Errorf("read after the slot was freed = %q %v", b, err)
	}
}

// The state directory is never served, even with no path excludes, when the
// root is reached through a symlinked path and the request goes through a
// link into it (issue 14, 0b): the check compares resolved paths.
func TestStateDirThroughSymlinkedRoot(t *testing.T) {
	real := t.TempDir()
	os.MkdirAll(filepath.Join(real, ".dir2mcp"), 0o700)
	os.WriteFile(filepath.Join(real, ".dir2mcp", "secret.token"), []byte("tok"), 0o600)
	os.Symlink(".dir2mcp/secret.token", filepath.Join(real, "tok.txt"))
	os.Symlink(".dir2mcp", filepath.Join(real, "link_state"))
	dir := filepath.Join(t.TempDir(), "link-to-root")
	if err := os.Symlink(real, dir); err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	none, _ := exclude.New(nil, nil)
	a := &Access{Root: r, StateDir: filepath.Join(dir, ".dir2mcp"), Exclude: none}
	for _, rel := range []string{"tok.txt", "link_state/secret.token", ".dir2mcp/secret.token", ".DIR2MCP/secret.token"} {
		if _, err := a.Check(rel); errcode.Of(err) != errcode.Forbidden && errcode.Of(err) != errcode.FileNotFound {
			t.Errorf("Check(%s) = %v, want FORBIDDEN", rel, err)
		}
	}
}
