package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	// PostingsLock is held by the process maintaining the keyword index
	// (lib/postings): any process that writes chunks may take it.
	PostingsLock = "postings.lock"
	// ConnectionLock is held by the HTTP server that owns connection.json
	// for as long as it serves: only that server writes and removes the
	// file, so a second server on the same state directory cannot replace
	// or delete the first one's address.
	ConnectionLock = "connection.lock"
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
	if err := os.MkdirAll(d.Join("locks"), DirMode); err != nil {
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "cannot create %s: %v", d.Join("locks"), err)
	}
	path := d.Join("locks", name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, FileMode)
	if err != nil {
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "cannot open lock %s: %v", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := readHolder(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who, hint := "", "wait for it to finish or stop it (readers such as `serve` and `status` are unaffected)"
			if holder.PID > 0 {
				who = ", " + holder.String() + ","
			}
			if strings.HasSuffix(holder.Command, " up") {
				hint = "a running `dir2mcp up` indexes changes itself; wait for its current job to finish or stop it"
			}
			return nil, errcode.Wrap(errcode.IndexLocked, &LockedError{Lock: name, Holder: holder},
				"another dir2mcp writer%s holds %s; %s", who, path, hint)
		}
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "cannot lock %s: %v", path, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(fmt.Sprintf("%d %s\n", os.Getpid(), strings.Join(os.Args, " "))), 0)
	return &Lock{f: f, name: name}, nil
}

// Holder is the process holding a lock, as it recorded itself in the lock
// file (PID 0: unknown).
type Holder struct {
	PID int
	// Command is the program and subcommand, e.g. "dir2mcp reindex" or
	// "dir2mcp-extract".
	Command string
}

// String is "pid N (command)".
func (h Holder) String() string {
	if h.Command == "" {
		return fmt.Sprintf("pid %d", h.PID)
	}
	return fmt.Sprintf("pid %d (%s)", h.PID, h.Command)
}

// LockedError is the cause of TryLock's INDEX_LOCKED error: which lock is
// held and by whom.
type LockedError struct {
	Lock   string
	Holder Holder
}

func (e *LockedError) Error() string { return e.Lock + " is held by " + e.Holder.String() }

// readHolder parses the "pid argv…" line a lock holder wrote.
func readHolder(f *os.File) Holder {
	b := make([]byte, 1024)
	n, _ := f.ReadAt(b, 0)
	fields := strings.Fields(strings.SplitN(string(b[:n]), "\n", 2)[0])
	if len(fields) == 0 {
		return Holder{}
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil {
		return Holder{}
	}
	h := Holder{PID: pid}
	if len(fields) > 1 {
		h.Command = filepath.Base(fields[1])
		if len(fields) > 2 && !strings.HasPrefix(fields[2], "-") {
			h.Command += " " + fields[2]
		}
	}
	return h
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
