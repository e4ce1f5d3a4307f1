package x402

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
)

// Replay errors.
var (
	// ErrReplayed: the payment already bought a call.
	ErrReplayed = errors.New("payment already used")
	// ErrInUse: the payment is paying for a call in progress.
	ErrInUse = errors.New("payment in use by another call")
)

// Replay limits.
const (
	// DefaultReplayEntries bounds the remembered payments; past it the
	// ones closest to expiry are forgotten first.
	DefaultReplayEntries = 1 << 17
	// replayRetention caps how long a payment is remembered when it
	// carries no earlier expiry. A forgotten payment still cannot buy a
	// call twice: its authorization is spent on chain, so its second
	// settlement fails and the result is withheld.
	replayRetention = 7 * 24 * time.Hour
	// replayGrace is kept past a payment's own validBefore (clock skew).
	replayGrace = 10 * time.Minute
)

// Replay remembers the payments that bought a call, in an append-only
// JSONL file so a restart does not reopen them. A payment is reserved in
// memory while its call runs (a concurrent reuse is refused) and recorded
// durably, with fsync, before it is settled. Memory and file are bounded:
// entries expire with the payment, at most Max are kept, and the file is
// compacted when mostly stale. It is safe for concurrent use.
type Replay struct {
	path string
	// Max bounds remembered payments (0 = DefaultReplayEntries).
	Max int
	now func() time.Time

	mu      sync.Mutex
	used    map[string]int64 // key → expiry (unix seconds)
	pending map[string]bool
	f       *os.File
	lines   int // entry lines in the file
}

type replayLine struct {
	Key     string `json:"k"`
	Expires int64  `json:"exp"`
}

// OpenReplay loads the replay log at path (creating it), dropping expired
// entries. A torn last line (a crash mid-append) is ignored.
func OpenReplay(path string, now func() time.Time) (*Replay, error) {
	if now == nil {
		now = time.Now
	}
	r := &Replay{path: path, now: now, used: map[string]int64{}, pending: map[string]bool{}}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	t := now().Unix()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		var l replayLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Key == "" {
			continue
		}
		r.lines++
		if l.Expires > t && l.Expires > r.used[l.Key] {
			r.used[l.Key] = l.Expires
		}
	}
	if err := sc.Err(); err != nil {
		f.Close()
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return nil, err
	}
	if end > 0 { // end a torn last line so the next entry starts clean
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, end-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte{'\n'}); err != nil {
				f.Close()
				return nil, err
			}
		}
	}
	r.f = f
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.maybeCompactLocked(); err != nil {
		r.f.Close()
		return nil, err
	}
	return r, nil
}

// Reserve claims keys for a call in progress: ErrReplayed if any was
// used, ErrInUse if any is claimed by another call.
func (r *Replay) Reserve(keys []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.now().Unix()
	for _, k := range keys {
		if exp, ok := r.used[k]; ok && exp > t {
			return ErrReplayed
		}
		if r.pending[k] {
			return ErrInUse
		}
	}
	for _, k := range keys {
		r.pending[k] = true
	}
	return nil
}

// Release drops a reservation whose payment was not spent (verification
// failed, or the tool failed and nothing was settled).
func (r *Replay) Release(keys []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range keys {
		delete(r.pending, k)
	}
}

// Commit records keys as used until expires, durably, and ends their
// reservation. On error the payment must not be settled.
func (r *Replay) Commit(keys []string, expires time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	exp := expires.Unix()
	var buf []byte
	for _, k := range keys {
		b, _ := json.Marshal(replayLine{Key: k, Expires: exp})
		buf = append(append(buf, b...), '\n')
	}
	if r.f == nil {
		return errors.New("replay log closed")
	}
	if _, err := r.f.Write(buf); err != nil {
		return err
	}
	if err := r.f.Sync(); err != nil {
		return err
	}
	r.lines += len(keys)
	for _, k := range keys {
		r.used[k] = exp
		delete(r.pending, k)
	}
	return r.maybeCompactLocked()
}

// Expiry is how long a payment valid until validBefore (unix seconds, 0 =
// unknown) is remembered from now.
func (r *Replay) Expiry(validBefore int64) time.Time {
	now := r.now()
	limit := now.Add(replayRetention)
	if validBefore <= 0 {
		return limit
	}
	exp := time.Unix(validBefore, 0).Add(replayGrace)
	if exp.After(limit) {
		return limit
	}
	if exp.Before(now.Add(replayGrace)) {
		return now.Add(replayGrace)
	}
	return exp
}

// Len reports the number of remembered payment keys.
func (r *Replay) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.used)
}

// Close closes the log file.
func (r *Replay) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// maybeCompactLocked drops expired entries, enforces Max, and rewrites
// the file when it holds more than twice the live entries.
func (r *Replay) maybeCompactLocked() error {
	t := r.now().Unix()
	for k, exp := range r.used {
		if exp <= t {
			delete(r.used, k)
		}
	}
	max := r.Max
	if max <= 0 {
		max = DefaultReplayEntries
	}
	if len(r.used) > max {
		keys := make([]string, 0, len(r.used))
		for k := range r.used {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return r.used[keys[i]] < r.used[keys[j]] })
		for _, k := range keys[:len(r.used)-max] {
			delete(r.used, k)
		}
	}
	if r.lines <= 2*len(r.used)+1024 {
		return nil
	}
	keys := make([]string, 0, len(r.used))
	for k := range r.used {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	err := atomicfile.WriteFunc(r.path, 0o600, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		for _, k := range keys {
			b, _ := json.Marshal(replayLine{Key: k, Expires: r.used[k]})
			bw.Write(append(b, '\n'))
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("compacting %s: %w", r.path, err)
	}
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	r.f.Close()
	r.f, r.lines = f, len(keys)
	return nil
}
