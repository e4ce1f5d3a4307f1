package corpora

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Cache keeps downloads and materialised corpora outside the repository
// (default $TMPDIR/dir2mcp-eval). Every download is checked against its
// pinned sha256 before use.
type Cache struct {
	Dir string
	Log io.Writer // progress lines (nil: discard)
}

func (c *Cache) logf(format string, a ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", a...)
	}
}

// deb is a Debian package pinned to a version and the sha256 of its .deb.
type deb struct{ Pkg, Version, SHA256 string }

// npmPkg is an npm package pinned to a version and the sha256 of its tarball.
type npmPkg struct{ Name, Version, SHA256 string }

// goMod is a Go module pinned to a version and the sha256 of its zip.
type goMod struct{ Path, Version, SHA256 string }

func (d deb) String() string    { return d.Pkg + "=" + d.Version }
func (n npmPkg) String() string { return n.Name + "@" + n.Version }
func (m goMod) String() string  { return m.Path + "@" + m.Version }

// download returns the cached file in dir, fetching it with get (run in
// dir) when missing, and verifies its sha256.
func (c *Cache) download(dir, want string, get func(dir string) error) (string, error) {
	dir = filepath.Join(c.Dir, "downloads", dir)
	find := func() string {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				return filepath.Join(dir, e.Name())
			}
		}
		return ""
	}
	f := find()
	if f == "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := get(dir); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
		if f = find(); f == "" {
			return "", fmt.Errorf("download into %s produced no file", dir)
		}
	}
	got, err := fileSHA256(f)
	if err != nil {
		return "", err
	}
	if got != want {
		return "", fmt.Errorf("%s: sha256 %s, pinned %s (delete it to download again)", f, got, want)
	}
	return f, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func run(dir string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return nil
}

// extractDeb fetches d with `apt-get download PKG=VERSION` and unpacks it
// into dst with dpkg-deb -x.
func (c *Cache) extractDeb(d deb, dst string) error {
	c.logf("fetch %s (apt)", d)
	f, err := c.download(filepath.Join("apt", d.Pkg+"="+d.Version), d.SHA256, func(dir string) error {
		err := run(dir, "apt-get", "download", d.String())
		if err != nil {
			err = fmt.Errorf("%v(if the version is not found, run `apt-get update`; a superseded Debian version may have left the archive)", err)
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return run(".", "dpkg-deb", "-x", f, dst)
}

// extractNpm fetches p with `npm pack NAME@VERSION` and unpacks every file
// of the tarball into dst, without the leading package/ directory.
func (c *Cache) extractNpm(p npmPkg, dst string) error {
	c.logf("fetch %s (npm)", p)
	f, err := c.download(filepath.Join("npm", strings.ReplaceAll(p.String(), "/", "%2f")), p.SHA256, func(dir string) error {
		return run(dir, "npm", "pack", "--silent", p.String())
	})
	if err != nil {
		return err
	}
	fh, err := os.Open(f)
	if err != nil {
		return err
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		_, rel, ok := strings.Cut(strings.TrimPrefix(h.Name, "./"), "/")
		if !ok {
			continue
		}
		if err := writeFile(dst, rel, tr); err != nil {
			return err
		}
	}
}

// extractGoMod fetches m with `go mod download` (the module proxy) and
// unpacks its zip into dst.
func (c *Cache) extractGoMod(m goMod, dst string) error {
	c.logf("fetch %s (go module)", m)
	f, err := c.download(filepath.Join("gomod", strings.ReplaceAll(m.String(), "/", "%2f")), m.SHA256, func(dir string) error {
		cmd := exec.Command("go", "mod", "download", "-json", m.String())
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on")
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("go mod download %s: %v", m, err)
		}
		var info struct{ Zip, Error string }
		if err := json.Unmarshal(out, &info); err != nil || info.Zip == "" {
			return fmt.Errorf("go mod download %s: %s %v", m, info.Error, err)
		}
		return copyFile(info.Zip, filepath.Join(dir, "module.zip"))
	})
	if err != nil {
		return err
	}
	zr, err := zip.OpenReader(f)
	if err != nil {
		return err
	}
	defer zr.Close()
	prefix := m.String() + "/"
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() || !strings.HasPrefix(zf.Name, prefix) {
			continue
		}
		r, err := zf.Open()
		if err != nil {
			return err
		}
		err = writeFile(dst, strings.TrimPrefix(zf.Name, prefix), r)
		r.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func writeFile(root, rel string, r io.Reader) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if !strings.HasPrefix(p, filepath.Clean(root)+string(filepath.Separator)) {
		return fmt.Errorf("archive path %q escapes the corpus", rel)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func copyFile(src, dst string) error {
	r, err := os.Open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	return writeFile(filepath.Dir(dst), filepath.Base(dst), r)
}

// copyTree copies the regular files under src (a directory of an unpacked
// package) to dst/under, keeping those keep accepts (nil: all); symlinks
// are skipped.
func copyTree(src, dst string, keep func(rel string) bool) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		if keep != nil && !keep(rel) {
			return nil
		}
		r, err := os.Open(p)
		if err != nil {
			return err
		}
		defer r.Close()
		return writeFile(dst, rel, r)
	})
}

// fromDebs unpacks the debs into a scratch directory and copies the files
// under sub that keep accepts (nil: all) into dst.
func fromDebs(c *Cache, dst, sub string, keep func(string) bool, debs ...deb) error {
	scratch := dst + ".debs"
	os.RemoveAll(scratch)
	defer os.RemoveAll(scratch)
	for _, d := range debs {
		if err := c.extractDeb(d, scratch); err != nil {
			return err
		}
	}
	return copyTree(filepath.Join(scratch, filepath.FromSlash(sub)), dst, keep)
}
