package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// GitignoreFile keeps a state directory out of version control: it holds
// "*", which ignores every file in the directory (the token, the indexed
// text, the vectors) and the .gitignore itself.
const GitignoreFile = ".gitignore"

// Private modes: the state directory holds the indexed text and the bearer
// token, so only its owner may read it.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// makePrivate keeps the state directory private and out of git. A directory
// dir2mcp just created, the default <root>/.dir2mcp, or one that holds
// nothing but dir2mcp's files becomes 0700 and gets a .gitignore of "*" if
// it has none. In any state directory dir2mcp's own files are tightened to
// 0600 (directories 0700); a --state-dir shared with other files keeps its
// mode and the other files are left alone.
func (d Dir) makePrivate(created bool) error {
	entries, err := os.ReadDir(d.Path)
	if err != nil {
		return errcode.Wrap(errcode.StoreCorrupt, err, "cannot read state directory %s: %v", d.Path, err)
	}
	dedicated := created || filepath.Base(d.Path) == DefaultName
	if !dedicated {
		dedicated = true
		for _, en := range entries {
			if !isStateName(en.Name()) {
				dedicated = false
				break
			}
		}
	}
	if dedicated {
		if err := tighten(d.Path, DirMode); err != nil {
			return err
		}
		if err := d.writeGitignore(); err != nil {
			return err
		}
	}
	for _, en := range entries {
		if isStateName(en.Name()) {
			if err := tightenTree(d.Join(en.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeGitignore writes .gitignore ("*") unless the directory has one.
func (d Dir) writeGitignore() error {
	f, err := os.OpenFile(d.Join(GitignoreFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err == nil {
		_, err = f.WriteString("# dir2mcp state (index, vectors, bearer token): never commit it\n*\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return errcode.Wrap(errcode.StoreCorrupt, err, "cannot write %s: %v", d.Join(GitignoreFile), err)
	}
	return nil
}

// tightenTree makes path (and everything under it) private: directories
// 0700, files 0600. Symbolic links are not followed.
func tightenTree(path string) error {
	return filepath.WalkDir(path, func(p string, en fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		switch {
		case en.IsDir():
			return tighten(p, DirMode)
		case en.Type().IsRegular():
			return tighten(p, FileMode)
		}
		return nil
	})
}

// tighten removes the permission bits of path beyond max.
func tighten(path string, max fs.FileMode) error {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return errcode.Wrap(errcode.StoreCorrupt, err, "cannot read %s: %v", path, err)
	}
	if perm := fi.Mode().Perm(); perm&^max != 0 {
		// Best effort on a file this user does not own or a read-only
		// mount: the commands that need to write there fail on their own.
		if err := os.Chmod(path, perm&max); err != nil && !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EROFS) {
			return errcode.Wrap(errcode.StoreCorrupt, err, "cannot make %s private (mode %o): %v", path, perm&max, err)
		}
	}
	return nil
}

// stateNames are the entries dir2mcp keeps in a state directory;
// statePrefixes cover SQLite's -wal/-shm, vector files of every kind and
// rotated audit logs.
var (
	stateNames = []string{
		SnapshotFile, ConnectionFile, TokenFile, CorpusFile, IngestLog, CursorKeyFile, GitignoreFile,
		"locks", "cache", PaymentsDir, "tokens.json", "tokens.used.json",
	}
	statePrefixes = []string{"meta.sqlite", "vectors_", AuditLog}
)

// isStateName reports whether name is one of dir2mcp's state entries or a
// temporary file of one being written atomically (".NAME.tmp-…").
func isStateName(name string) bool {
	if i := strings.Index(name, ".tmp-"); i > 1 && name[0] == '.' {
		name = name[1:i]
	}
	if slices.Contains(stateNames, name) {
		return true
	}
	for _, p := range statePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
