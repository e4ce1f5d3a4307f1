package corpus

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/archive"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/hangcheck"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// protected marks the content of every file a client must never read.
const protected = "PROTECTED-CONTENT"

// hostileRoot is a served root reached through a symlink (as --dir
// ~/work-link, or macOS's temp dir), holding excluded files, the state
// directory with its token, links to all of them and out of the root, a
// FIFO and an archive with excluded members. It returns the Access a
// server builds for it.
func hostileRoot(tb testing.TB) *Access {
	tb.Helper()
	base := tb.TempDir()
	real, link := filepath.Join(base, "real"), filepath.Join(base, "link")
	write := func(rel, body string) {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("outside/secret.txt", protected)
	write("real/ok.txt", "fine")
	write("real/docs/readme.md", "# fine")
	for _, rel := range []string{".env", "sub/.ENV", "id_rsa", "keys/server.pem", config.DefaultFileName, ".git/config", "node_modules/m/index.js", ".dir2mcp/secret.token"} {
		write("real/"+rel, protected)
	}
	for name, target := range map[string]string{
		"link_env.txt": ".env", "link_rsa.txt": "id_rsa", "link_cfg.txt": config.DefaultFileName,
		"link_git.txt": ".git/config", "link_gitdir": ".git", "link_nm": "node_modules",
		"tok.txt": ".dir2mcp/secret.token", "link_state": ".dir2mcp", "link_out": "../outside",
		"link_out_file.txt": "../outside/secret.txt", "link_abs.txt": filepath.Join(base, "outside/secret.txt"),
		"link_root": ".", "docs/up.txt": "../.env", "dangling.txt": "../outside/missing",
	} {
		if err := os.Symlink(target, filepath.Join(real, name)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Symlink(real, link); err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(real, "fifo.txt"), 0o644); err != nil {
		tb.Fatal(err)
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, m := range [][2]string{{"a.txt", "fine"}, {".env", protected}, {"sub/ID_RSA", protected}, {"b/c.md", "# fine"}} {
		w, _ := zw.Create(m[0])
		w.Write([]byte(m[1]))
	}
	zw.Close()
	write("real/docs.zip", zb.String())

	ctx := context.Background()
	dir := state.Resolve(link, "")
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	r, err := rootfs.Open(link)
	if err != nil {
		tb.Fatal(err)
	}
	cfg := config.Default()
	ex, err := exclude.New(cfg.Security.PathExcludes, cfg.Security.SecretPatterns)
	if err != nil {
		tb.Fatal(err)
	}
	return &Access{Root: r, StateDir: dir.Path, Exclude: ex, Store: st, Archives: archive.Limits{MaxDepth: 2, MaxMembers: 100, MaxTotalBytes: 1 << 20, MaxMemberBytes: 1 << 20}}
}

// FuzzOpen feeds client paths (tools' rel_path, resource URIs' paths)
// through the access policy: every answer is a coded error, and whatever
// is opened and read lies inside the root and is none of the protected
// files (excluded, the config, the state directory, outside the root),
// however it is named.
func FuzzOpen(f *testing.F) {
	for _, s := range []string{
		"ok.txt", "./ok.txt", "docs/readme.md", "docs//readme.md", ".env", ".ENV", "sub/.ENV", "sub/.env", "ID_RSA", "keys/SERVER.PEM",
		".dir2mcp.yaml", ".DIR2MCP.YAML", ".git/config", ".GIT/config", "node_modules/m/index.js", ".dir2mcp/secret.token",
		"link_env.txt", "LINK_ENV.TXT", "link_rsa.txt", "link_cfg.txt", "link_git.txt", "link_gitdir/config", "link_nm/m/index.js",
		"tok.txt", "link_state/secret.token", "link_out/secret.txt", "link_out_file.txt", "link_abs.txt", "link_root/.env",
		"link_root/link_root/tok.txt", "docs/up.txt", "dangling.txt", "fifo.txt", "../outside/secret.txt", "%2e%2e/outside/secret.txt",
		"%2E%2E%2Foutside%2Fsecret.txt", "docs/%2e%2e/.env", "..\\outside\\secret.txt", "docs\\..\\.env", "/etc/passwd", "C:/x",
		"ok.txt\x00.env", ".", "", "docs.zip", "docs.zip!/a.txt", "docs.zip!/.env", "docs.zip!/sub/ID_RSA", "docs.zip!/../.env",
		"docs.zip!/b/c.md", "link_env.txt!/x", "docs.zip!/a.txt!/b", "%2e%64ir2mcp/secret.token", "ok.txt/", "docs/readme.md/..",
	} {
		f.Add(s)
	}
	a := hostileRoot(f)
	realRoot, err := filepath.EvalSymlinks(a.Root.Dir())
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, rel string) {
		defer hangcheck.Arm()()
		tg, err := a.Open(ctx, rel)
		if err != nil {
			if errcode.Of(err) == errcode.Internal {
				t.Fatalf("Open(%q): uncoded error %v", rel, err)
			}
			return
		}
		if tg.ArchiveRel == "" {
			abs, err := a.Root.Resolve(tg.Rel)
			if err != nil {
				t.Fatalf("Open(%q) accepted %q, which does not resolve: %v", rel, tg.Rel, err)
			}
			if abs != realRoot && !strings.HasPrefix(abs, realRoot+string(filepath.Separator)) {
				t.Fatalf("Open(%q) accepted %q, resolving to %s outside the root %s", rel, tg.Rel, abs, realRoot)
			}
		}
		data, _, err := a.Read(ctx, &tg, 1<<16)
		if err != nil {
			if errcode.Of(err) == errcode.Internal {
				t.Fatalf("Read(%q): uncoded error %v", rel, err)
			}
			return
		}
		if bytes.Contains(data, []byte(protected)) {
			t.Fatalf("Open(%q) served a protected file (%s)", rel, tg.Rel)
		}
	})
}
