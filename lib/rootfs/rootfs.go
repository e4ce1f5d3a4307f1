// Package rootfs confines file access to a root directory: every path a
// client or a record names is resolved here, and anything that would land
// outside the root (.., absolute paths, encoded traversal, symlinks pointing
// out) is refused with PATH_OUTSIDE_ROOT.
package rootfs

import (
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Root is a directory that paths are confined to.
type Root struct {
	dir  string // absolute, cleaned
	real string // dir with symlinks resolved
}

// Open returns a Root for dir, which must be an existing directory.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, errcode.Wrap(errcode.RootInaccessible, err, "root %s: %v", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, errcode.Wrap(errcode.RootInaccessible, err, "root %s is not accessible: %v", abs, err)
	}
	if !fi.IsDir() {
		return nil, errcode.New(errcode.RootInaccessible, "root %s is not a directory", abs)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, errcode.Wrap(errcode.RootInaccessible, err, "root %s: %v", abs, err)
	}
	return &Root{dir: abs, real: real}, nil
}

// Dir is the absolute root directory.
func (r *Root) Dir() string { return r.dir }

// Clean validates a relative path and returns it in canonical slash form
// ("a/b.go"), its bytes as written: "%" and "\" are ordinary name bytes
// on disk ("100%.txt", "a\b.txt"). Name also tries a client's other
// spelling (percent-decoded, "\" as "/").
func Clean(rel string) (string, error) {
	if strings.ContainsRune(rel, 0) {
		return "", errcode.FieldError(errcode.InvalidField, "rel_path", "path contains a NUL byte")
	}
	if rel == "" {
		return "", errcode.FieldError(errcode.MissingField, "rel_path", "rel_path is empty")
	}
	if path.IsAbs(rel) || filepath.IsAbs(rel) || strings.HasPrefix(rel, "\\") || (len(rel) > 1 && rel[1] == ':') {
		return "", errcode.FieldError(errcode.PathOutsideRoot, "rel_path", "%q is absolute; give a path relative to the root", rel)
	}
	c := path.Clean(rel)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", errcode.FieldError(errcode.PathOutsideRoot, "rel_path", "%q resolves outside the root", rel)
	}
	if c == "." {
		return "", errcode.FieldError(errcode.InvalidField, "rel_path", "%q names the root itself, not a file", rel)
	}
	return c, nil
}

// respelled is rel as a client may have meant it, percent-decoded and with
// "\" as "/" ("" when that is rel itself).
func respelled(rel string) string {
	alt := rel
	if strings.Contains(alt, "%") {
		if dec, err := url.PathUnescape(alt); err == nil {
			alt = dec
		}
	}
	alt = strings.ReplaceAll(alt, "\\", "/")
	if alt == rel {
		return ""
	}
	return alt
}

// Name returns the canonical rel_path a client path names: the path as
// written when a file (or link) of that name exists under the root, else
// its other spelling (percent-decoded, "\" as "/") when that exists.
// Either spelling leaving the root is PATH_OUTSIDE_ROOT, so "%2e%2e/x" and
// "..\\x" are refused unless a file has that very name.
func (r *Root) Name(rel string) (string, error) {
	c, err := Clean(rel)
	if err != nil {
		return "", err
	}
	alt := respelled(rel)
	if alt == "" || r.exists(c) {
		return c, nil
	}
	ca, err := Clean(alt)
	if err != nil {
		if e := errcode.As(err); e.Code == errcode.PathOutsideRoot {
			return "", errcode.FieldError(errcode.PathOutsideRoot, "rel_path", "%q resolves outside the root", rel)
		}
		return c, nil
	}
	if r.exists(ca) {
		return ca, nil
	}
	return c, nil
}

func (r *Root) exists(c string) bool {
	_, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(c)))
	return err == nil
}

// Resolve returns the absolute path of rel (see Name) inside the root
// after checking that neither the path nor any symlink along it leads
// outside the root. A missing file is FILE_NOT_FOUND.
func (r *Root) Resolve(rel string) (string, error) {
	c, err := r.Name(rel)
	if err != nil {
		return "", err
	}
	abs := filepath.Join(r.dir, filepath.FromSlash(c))
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// A dangling symlink pointing outside is still an escape attempt.
			if target, lerr := os.Readlink(abs); lerr == nil && !r.inside(resolveLink(abs, target)) {
				return "", errcode.FieldError(errcode.PathOutsideRoot, "rel_path", "%q is a symlink to outside the root", c)
			}
			return "", errcode.FieldError(errcode.FileNotFound, "rel_path", "%s not found", c)
		}
		return "", errcode.Wrap(errcode.FileNotFound, err, "%s: %v", c, err)
	}
	if !r.inside(real) {
		return "", errcode.FieldError(errcode.PathOutsideRoot, "rel_path", "%q resolves outside the root (symlink)", c)
	}
	return real, nil
}

// Rel returns the slash-separated path, relative to the root, of abs, a
// path Resolve returned (symlinks resolved); ok is false for the root
// itself or a path outside it.
func (r *Root) Rel(abs string) (string, bool) {
	for _, base := range []string{r.real, r.dir} {
		if rel, err := filepath.Rel(base, abs); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

func resolveLink(link, target string) string {
	if filepath.IsAbs(target) {
		return filepath.Clean(target)
	}
	return filepath.Join(filepath.Dir(link), target)
}

func (r *Root) inside(p string) bool {
	if p == r.real || p == r.dir {
		return true
	}
	return strings.HasPrefix(p, r.real+string(filepath.Separator)) || strings.HasPrefix(p, r.dir+string(filepath.Separator))
}

// OpenFile opens rel (confined to the root) for reading and returns it
// with its info. Only regular files are opened: a directory is
// INVALID_FIELD, and a named pipe, socket or device is DOC_TYPE_UNSUPPORTED
// without ever being opened (opening a FIFO blocks, reading a device may
// never end). The open itself neither blocks nor follows a symlink swapped
// in after the check, and the file opened must be the one checked.
func (r *Root) OpenFile(rel string) (*os.File, fs.FileInfo, error) {
	abs, err := r.Resolve(rel)
	if err != nil {
		return nil, nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, nil, errcode.Wrap(errcode.FileNotFound, err, "%s: %v", rel, err)
	}
	if err := regular(rel, fi); err != nil {
		return nil, nil, err
	}
	f, got, err := openRegular(abs, noFollow)
	if err != nil {
		if errcode.Of(err) == errcode.Internal {
			err = errcode.Wrap(errcode.FileNotFound, err, "%s: %v", rel, err)
		}
		return nil, nil, err
	}
	if !os.SameFile(fi, got) {
		f.Close()
		return nil, nil, errcode.FieldError(errcode.FileNotFound, "rel_path", "%s changed while being opened", rel)
	}
	return f, got, nil
}

// OpenRegular opens abs for reading without blocking and returns it only
// if the descriptor opened is a regular file: a FIFO, socket or device
// swapped in after any earlier check is refused (DOC_TYPE_UNSUPPORTED)
// instead of blocking the caller. Errors from the open itself are returned
// as they are.
func OpenRegular(abs string) (*os.File, fs.FileInfo, error) { return openRegular(abs, 0) }

func openRegular(abs string, flags int) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(abs, os.O_RDONLY|nonBlock|flags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = regular(filepath.Base(abs), fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// regular refuses anything but a regular file.
func regular(rel string, fi fs.FileInfo) error {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errcode.FieldError(errcode.InvalidField, "rel_path", "%s is a directory", rel)
	case m&fs.ModeNamedPipe != 0:
		return errcode.FieldError(errcode.DocTypeUnsupported, "rel_path", "%s is a named pipe (FIFO), not a regular file, and is never read", rel)
	case m&fs.ModeSocket != 0:
		return errcode.FieldError(errcode.DocTypeUnsupported, "rel_path", "%s is a socket, not a regular file, and is never read", rel)
	case m&fs.ModeDevice != 0:
		return errcode.FieldError(errcode.DocTypeUnsupported, "rel_path", "%s is a device, not a regular file, and is never read", rel)
	}
	return errcode.FieldError(errcode.DocTypeUnsupported, "rel_path", "%s is not a regular file (%s) and is never read", rel, m.Type())
}

// ReadFile reads rel (confined to the root, a regular file: see OpenFile)
// up to max bytes (0 = no limit). truncated reports whether the file was
// longer.
func (r *Root) ReadFile(rel string, max int64) (data []byte, truncated bool, err error) {
	f, _, err := r.OpenFile(rel)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if max <= 0 {
		data, err = io.ReadAll(f)
		return data, false, err
	}
	data, err = io.ReadAll(io.LimitReader(f, max+1))
	if int64(len(data)) > max {
		return data[:max], true, err
	}
	return data, false, err
}
