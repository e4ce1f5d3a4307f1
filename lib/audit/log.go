package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Options configure a Log.
type Options struct {
	// Path is the log file (audit.jsonl); rotated files are Path.1 (the
	// newest) … Path.Keep.
	Path string
	// MaxBytes rotates the file before a write would take it past this
	// size (0 = never).
	MaxBytes int64
	// Keep is how many rotated files are kept (at least 1).
	Keep int
	// OnError receives write failures (the log keeps going); nil drops
	// them.
	OnError func(error)
}

// queueLen bounds the records waiting to be written; Write blocks only
// when it is full, so no record is ever dropped.
const queueLen = 4096

// Log appends records to the audit file from a background goroutine. Its
// methods are safe for concurrent use; a nil *Log discards records. Several
// processes may write the same file: each write and rotation happens under
// an advisory lock (locks/<name>.lock beside Path).
type Log struct {
	o    Options
	q    chan Record
	done chan struct{}

	mu     sync.RWMutex // Write holds it to send, Close to close q
	closed bool

	f    *os.File // the open log file (reopened after another process rotated it)
	lock *os.File
}

// Open starts a Log writing o.Path (created 0600 with its directory).
func Open(o Options) (*Log, error) {
	if o.Keep < 1 {
		o.Keep = 1
	}
	locks := filepath.Join(filepath.Dir(o.Path), "locks")
	if err := os.MkdirAll(locks, 0o700); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(locks, filepath.Base(o.Path)+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	l := &Log{o: o, q: make(chan Record, queueLen), done: make(chan struct{}), lock: lock}
	if err := l.reopen(); err != nil {
		lock.Close()
		return nil, err
	}
	go l.loop()
	return l, nil
}

// Write queues r. It returns at once unless queueLen records are waiting.
func (l *Log) Write(r Record) {
	if l == nil {
		return
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if !l.closed {
		l.q <- r
	}
}

// Close writes every queued record, syncs the file and stops the writer.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.q)
	}
	l.mu.Unlock()
	<-l.done
	err := l.f.Sync()
	return errors.Join(err, l.f.Close(), l.lock.Close())
}

func (l *Log) loop() {
	defer close(l.done)
	var buf []byte
	for r := range l.q {
		buf = appendRecord(buf[:0], r)
		// Take whatever else is queued: one locked write per batch.
	batch:
		for len(buf) < 1<<20 {
			select {
			case r, ok := <-l.q:
				if !ok {
					break batch
				}
				buf = appendRecord(buf, r)
			default:
				break batch
			}
		}
		if err := l.append(buf); err != nil && l.o.OnError != nil {
			l.o.OnError(err)
		}
	}
}

func appendRecord(buf []byte, r Record) []byte {
	b, err := json.Marshal(r)
	if err != nil { // cannot happen for a Record; keep the line count honest
		b = []byte(fmt.Sprintf(`{"time":%q,"tool":%q,"error":"AUDIT_ENCODE"}`, r.Time, r.Tool))
	}
	return append(append(buf, b...), '\n')
}

// append writes whole lines under the lock, rotating first when they
// would take the file past MaxBytes.
func (l *Log) append(lines []byte) error {
	if err := syscall.Flock(int(l.lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", l.lock.Name(), err)
	}
	defer syscall.Flock(int(l.lock.Fd()), syscall.LOCK_UN)
	st, err := os.Stat(l.o.Path)
	cur, ferr := l.f.Stat()
	if err != nil || ferr != nil || !os.SameFile(st, cur) { // rotated or removed by someone else
		if err := l.reopen(); err != nil {
			return err
		}
		st, err = l.f.Stat()
		if err != nil {
			return err
		}
	}
	size := st.Size()
	for len(lines) > 0 {
		n := len(lines)
		if l.o.MaxBytes > 0 {
			n = fitting(lines, l.o.MaxBytes-size)
			if n == 0 && size > 0 {
				if err := l.rotate(); err != nil {
					return err
				}
				size = 0
				continue
			}
			if n == 0 { // one line longer than MaxBytes: it gets a file of its own
				n = bytes.IndexByte(lines, '\n') + 1
			}
		}
		if _, err := l.f.Write(lines[:n]); err != nil {
			return err
		}
		size += int64(n)
		lines = lines[n:]
	}
	return nil
}

// fitting is the length of the whole lines at the start of lines that fit
// in room bytes.
func fitting(lines []byte, room int64) int {
	n := 0
	for n < len(lines) {
		i := bytes.IndexByte(lines[n:], '\n')
		if int64(n+i+1) > room {
			break
		}
		n += i + 1
	}
	return n
}

// rotate shifts Path.i to Path.i+1 (dropping Path.Keep), moves Path to
// Path.1 and opens a new Path.
func (l *Log) rotate() error {
	p := l.o.Path
	for i := l.o.Keep - 1; i >= 1; i-- {
		if err := os.Rename(fmt.Sprintf("%s.%d", p, i), fmt.Sprintf("%s.%d", p, i+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.Rename(p, p+".1"); err != nil {
		return err
	}
	return l.reopen()
}

func (l *Log) reopen() error {
	f, err := os.OpenFile(l.o.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if l.f != nil {
		l.f.Close()
	}
	l.f = f
	return nil
}
