package state

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Lock names. The index lock guards documents, representations and chunks
// (scan results applied by extract, reindex); the vectors lock guards the
// vector files (embed). `up` holds both. Two stages of one pipeline
// (`extract | embed`) hold one each and share the store safely.
const (
	IndexLock   = "index.lock"
	VectorsLock = "vectors.lock"
)

// Lock is a held exclusive lock on a file in locks/. The OS releases it if
// the process dies, so a crash never leaves a stale lock behind.
type Lock struct {
	f    *os.File
	name string
}

// TryLock takes the named lock without waiting. If another process holds it
// the error is INDEX_LOCKED and names that process.
func (d Dir) TryLock(name string) (*Lock, error) {
	if err := os.MkdirAll(d.Join("locks"), 0o755); err != nil {
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "cannot create %s: %v", d.Join("locks"), err)
	}
	path := d.Join("locks", name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "cannot open lock %s: %v", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := readHolder(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errcode.New(errcode.IndexLocked,
				"another dir2mcp writer%s holds %s; wait for it to finish or stop it (readers such as `serve` and `status` are unaffected)", holder, path)
		}
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "cannot lock %s: %v", path, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(fmt.Sprintf("%d %s\n", os.Getpid(), strings.Join(os.Args, " "))), 0)
	return &Lock{f: f, name: name}, nil
}

func readHolder(f *os.File) string {
	b := make([]byte, 256)
	n, _ := f.ReadAt(b, 0)
	line := strings.TrimSpace(strings.SplitN(string(b[:n]), "\n", 2)[0])
	pid, _, _ := strings.Cut(line, " ")
	if _, err := strconv.Atoi(pid); err != nil {
		return ""
	}
	return " (pid " + pid + ")"
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	cerr := l.f.Close()
	l.f = nil
	return errors.Join(err, cerr)
}
