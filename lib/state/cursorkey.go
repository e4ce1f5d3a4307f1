package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// CursorKeyFile holds the key that signs the cursors of paged tool results
// (hex, mode 0600). It is created on first use and never leaves the state
// directory.
const CursorKeyFile = "cursor.key"

// cursorKeyBytes is the size of the cursor key.
const cursorKeyBytes = 32

// EnsureCursorKey returns the key in cursor.key, creating a random one on
// first use. Creation is race-free between processes sharing the state
// directory (up and serve): the first key written wins and every process
// reads that one. A key readable by group or others is tightened to 0600.
func (d Dir) EnsureCursorKey() ([]byte, error) {
	path := d.Join(CursorKeyFile)
	for range 3 {
		key, err := readCursorKey(path)
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			return key, err
		}
		if err := d.Ensure(); err != nil {
			return nil, err
		}
		if err := createCursorKey(path); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, errcode.Wrap(errcode.StoreCorrupt, err, "cannot write %s: %v", path, err)
		}
	}
	return nil, errcode.New(errcode.StoreCorrupt, "cannot create %s", path)
}

func readCursorKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(path, 0o600)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != cursorKeyBytes {
		return nil, errcode.New(errcode.StoreCorrupt, "%s does not hold a %d-byte hex key; delete it to make a new one (outstanding cursors become invalid)", path, cursorKeyBytes)
	}
	return key, nil
}

// createCursorKey writes a new key to a temp file and links it into place,
// which fails with os.ErrExist when another process got there first.
func createCursorKey(path string) error {
	key := make([]byte, cursorKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+CursorKeyFile+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.WriteString(hex.EncodeToString(key) + "\n")
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(tmp, path)
}
