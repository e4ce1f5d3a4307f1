package cli

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
)

// connOwner is an HTTP server's claim on connection.json. Only the server
// holding locks/connection.lock writes the file and removes it on exit, so
// a second server on the same state directory never replaces or deletes
// the first one's address; when the owner stops, a remaining server takes
// the file over.
type connOwner struct {
	mu     sync.Mutex
	lock   *state.Lock // nil: not (yet) the owner
	closed bool
	stop   chan struct{}
}

// connPoll is how often a server that does not own connection.json checks
// whether the owner has gone.
const connPoll = time.Second

// ownConnection writes connection.json if no other server owns it; else it
// says which server does and keeps trying to take it over.
func (s *service) ownConnection(conn state.Connection) error {
	e := s.e
	_, err := s.conn.take(e.dir, conn)
	var held *state.LockedError
	if errcode.Of(err) != errcode.IndexLocked || !errors.As(err, &held) {
		return err
	}
	at := ""
	if c, err := e.dir.ReadConnection(); err == nil && c.URL != "" {
		at = " at " + c.URL
	}
	e.ev.Emit(events.Warn, record.EvNotice, map[string]any{
		"pid": held.Holder.PID, "url": s.url,
		"message": fmt.Sprintf("another server, %s, already serves %s%s and owns %s; this one serves at %s and shares the index, and takes %s over when the other stops",
			held.Holder, e.dir.Path, at, state.ConnectionFile, s.url, state.ConnectionFile),
	})
	s.conn.mu.Lock()
	s.conn.stop = make(chan struct{})
	s.conn.mu.Unlock()
	go s.awaitConnection(conn)
	return nil
}

// take claims connection.json and writes conn there. It reports false
// without an error once the server is shutting down.
func (o *connOwner) take(d state.Dir, conn state.Connection) (bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false, nil
	}
	lock, err := d.TryLock(state.ConnectionLock)
	if err != nil {
		return false, err
	}
	if err := d.WriteConnection(conn); err != nil {
		lock.Unlock()
		return false, errcode.Wrap(errcode.StoreCorrupt, err, "write %s: %v", d.Join(state.ConnectionFile), err)
	}
	o.lock = lock
	return true, nil
}

// awaitConnection takes connection.json over once its owner lets it go.
func (s *service) awaitConnection(conn state.Connection) {
	t := time.NewTicker(connPoll)
	defer t.Stop()
	for {
		select {
		case <-s.conn.stop:
			return
		case <-t.C:
		}
		taken, err := s.conn.take(s.e.dir, conn)
		if errcode.Of(err) == errcode.IndexLocked {
			continue
		}
		if !taken && err == nil {
			return
		}
		msg := fmt.Sprintf("the server that owned %s stopped; this one (%s) now owns it", state.ConnectionFile, s.url)
		level := events.Info
		if err != nil {
			msg, level = fmt.Sprintf("cannot take over %s: %v", state.ConnectionFile, err), events.Warn
		}
		s.e.ev.Emit(level, record.EvNotice, map[string]any{"url": s.url, "message": msg})
		return
	}
}

// release removes connection.json if this server owns it and gives up the
// claim; a server still waiting stops waiting.
func (o *connOwner) release(d state.Dir) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.closed = true
	if o.stop != nil {
		close(o.stop)
	}
	if o.lock == nil {
		return nil
	}
	d.RemoveConnection(os.Getpid())
	return o.lock.Unlock()
}
