package mcphttp

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session expiry reasons, sent in the X-MCP-Session-Expired header of the
// 404 a client gets for an expired session (SPEC §10.3).
const (
	ExpiredInactivity  = "inactivity"
	ExpiredMaxLifetime = "max-lifetime"
	// ExpiredCapacity: the least recently active idle session (no request
	// in flight, preferably no open stream) was evicted to admit a new one
	// once MaxSessions were open.
	ExpiredCapacity = "capacity"
)

// ExpiredHeader names the diagnostic header on a 404 for an expired session.
const ExpiredHeader = "X-MCP-Session-Expired"

const (
	// DefaultMaxSessions bounds concurrently open sessions when
	// Options.MaxSessions is 0.
	DefaultMaxSessions = 1000
	// DefaultAbandonTimeout is how long a session with no open stream and
	// no request in flight may stay idle when Options.AbandonTimeout is 0:
	// a client that exited without DELETE leaves such a session behind.
	DefaultAbandonTimeout = 30 * time.Minute
	// rememberExpired is how many expired session ids are remembered so a
	// late request still learns why its session is gone.
	rememberExpired = 4096
)

// sessionTable owns the lifecycle of Streamable HTTP sessions around the
// SDK's handler: it registers the id the SDK assigns on initialize, expires
// sessions after an inactivity timeout (shorter, abandon, for a session
// without an open stream; a session with an open GET stream or a request in
// flight is never idle) or a maximum lifetime (checked on every request and
// by a periodic sweep), evicts the least recently active idle session when
// the table is full, and answers a request for an expired session with 404
// plus X-MCP-Session-Expired. Memory is bounded: at most max live sessions
// (unless every one has a request in flight) and rememberExpired expired
// ids.
type sessionTable struct {
	next        http.Handler
	server      *mcp.Server
	inactivity  time.Duration // 0 = never
	abandon     time.Duration // idle limit without an open stream; 0 = never
	maxLifetime time.Duration // 0 = never
	max         int
	logger      *slog.Logger
	now         func() time.Time

	mu      sync.Mutex
	live    map[string]*sessionState
	expired map[string]string // id → reason
	ring    []string          // expired ids, oldest first, for eviction
	stop    chan struct{}
	stopped sync.Once
}

type sessionState struct {
	created  time.Time
	lastSeen time.Time
	inflight int // POSTs being served: an idle clock does not run meanwhile
	streams  int // GET streams open (the client listens): not idle either
}

// idle reports whether nothing of the session is in progress.
func (st *sessionState) idle() bool { return st.inflight == 0 && st.streams == 0 }

func newSessionTable(next http.Handler, server *mcp.Server, o Options, logger *slog.Logger) *sessionTable {
	t := &sessionTable{
		next: next, server: server, inactivity: o.SessionTimeout, maxLifetime: o.SessionMaxLifetime,
		max: o.MaxSessions, logger: logger, now: time.Now,
		live: map[string]*sessionState{}, expired: map[string]string{}, stop: make(chan struct{}),
	}
	if t.max <= 0 {
		t.max = DefaultMaxSessions
	}
	if t.inactivity > 0 {
		t.abandon = o.AbandonTimeout
		if t.abandon <= 0 {
			t.abandon = DefaultAbandonTimeout
		}
		t.abandon = min(t.abandon, t.inactivity)
	}
	if every := t.sweepInterval(); every > 0 {
		go t.sweepLoop(every)
	}
	return t
}

// sweepInterval is a quarter of the shortest limit, clamped to [10ms, 1m];
// 0 when no limit is set (capacity eviction needs no sweep).
func (t *sessionTable) sweepInterval() time.Duration {
	d := t.abandon
	if t.maxLifetime > 0 && (d == 0 || t.maxLifetime < d) {
		d = t.maxLifetime
	}
	if d <= 0 {
		return 0
	}
	return min(max(d/4, 10*time.Millisecond), time.Minute)
}

func (t *sessionTable) sweepLoop(every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
			t.sweep()
		}
	}
}

// sweep expires every session past a limit.
func (t *sessionTable) sweep() {
	now := t.now()
	var gone []string
	t.mu.Lock()
	for id, st := range t.live {
		if reason := t.reason(st, now); reason != "" {
			t.expireLocked(id, st, reason, now)
			gone = append(gone, id)
		}
	}
	t.mu.Unlock()
	t.closeSDK(gone...)
}

// close stops the sweeper and closes every open session.
func (t *sessionTable) close() {
	t.stopped.Do(func() { close(t.stop) })
	t.mu.Lock()
	ids := make([]string, 0, len(t.live))
	for id := range t.live {
		ids = append(ids, id)
	}
	clear(t.live)
	t.mu.Unlock()
	t.closeSDK(ids...)
}

// reason reports why st has expired at now, or "".
func (t *sessionTable) reason(st *sessionState, now time.Time) string {
	if t.maxLifetime > 0 && now.Sub(st.created) >= t.maxLifetime {
		return ExpiredMaxLifetime
	}
	if !st.idle() {
		return ""
	}
	if t.inactivity > 0 && now.Sub(st.lastSeen) >= t.inactivity ||
		t.abandon > 0 && now.Sub(st.lastSeen) >= t.abandon {
		return ExpiredInactivity
	}
	return ""
}

// expireLocked moves id from the live table to the expired memory and logs it.
func (t *sessionTable) expireLocked(id string, st *sessionState, reason string, now time.Time) {
	delete(t.live, id)
	t.expired[id] = reason
	t.ring = append(t.ring, id)
	if len(t.ring) > rememberExpired {
		delete(t.expired, t.ring[0])
		t.ring = append(t.ring[:0], t.ring[1:]...)
	}
	t.logger.Info("MCP session expired", "session", id, "reason", reason,
		"age", now.Sub(st.created).Round(time.Millisecond).String(),
		"idle", now.Sub(st.lastSeen).Round(time.Millisecond).String())
}

// closeSDK closes the SDK sessions with the given ids, releasing their
// goroutines and buffers. Close waits for in-flight requests, so it runs
// in the background.
func (t *sessionTable) closeSDK(ids ...string) {
	if len(ids) == 0 {
		return
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	for ss := range t.server.Sessions() {
		if want[ss.ID()] {
			go ss.Close()
		}
	}
}

// sdkHas reports whether the SDK still has session id open.
func (t *sessionTable) sdkHas(id string) bool {
	for ss := range t.server.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// register records a session the SDK just created. If the table is full it
// evicts the least recently active idle session, or, when every session
// has a request in flight or an open stream, the least recently active one
// with only a stream; one with a request in flight is never evicted.
func (t *sessionTable) register(id string) {
	now := t.now()
	var evicted string
	t.mu.Lock()
	if len(t.live) >= t.max {
		var victim *sessionState
		for sid, st := range t.live {
			if st.inflight == 0 && (victim == nil || evictsBefore(st, victim)) {
				victim, evicted = st, sid
			}
		}
		if victim != nil {
			t.expireLocked(evicted, victim, ExpiredCapacity, now)
		}
	}
	t.live[id] = &sessionState{created: now, lastSeen: now}
	t.mu.Unlock()
	if evicted != "" {
		t.closeSDK(evicted)
	}
}

// evictsBefore orders eviction candidates: idle before streaming, then
// least recently active first.
func evictsBefore(a, b *sessionState) bool {
	if a.idle() != b.idle() {
		return a.idle()
	}
	return a.lastSeen.Before(b.lastSeen)
}

// Len reports the number of live sessions.
func (t *sessionTable) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.live)
}

func (t *sessionTable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		if r.Method != http.MethodPost {
			t.next.ServeHTTP(w, r)
			return
		}
		cw := &sessionCapture{ResponseWriter: w, table: t}
		t.next.ServeHTTP(cw, r)
		if cw.id != "" && !t.sdkHas(cw.id) {
			// The SDK closes a session whose first request was not a
			// successful initialize.
			t.mu.Lock()
			delete(t.live, cw.id)
			t.mu.Unlock()
		}
		return
	}
	now := t.now()
	t.mu.Lock()
	st, ok := t.live[id]
	var reason string
	if ok {
		if reason = t.reason(st, now); reason != "" {
			t.expireLocked(id, st, reason, now)
		}
	} else {
		reason = t.expired[id]
	}
	if ok && reason == "" {
		st.lastSeen = now
		switch r.Method {
		case http.MethodPost:
			st.inflight++
		case http.MethodGet:
			st.streams++
		}
	}
	t.mu.Unlock()
	if reason != "" {
		if ok {
			t.closeSDK(id)
		}
		w.Header().Set(ExpiredHeader, reason)
		httpError(w, http.StatusNotFound, errcode.SessionNotFound,
			"session expired ("+reason+"); send a new initialize request without Mcp-Session-Id")
		return
	}
	if !ok { // unknown to us: the SDK answers (404 for an id it does not know either)
		t.next.ServeHTTP(w, r)
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	t.next.ServeHTTP(sw, r)
	t.mu.Lock()
	switch r.Method { // st may have expired meanwhile: count on it anyway
	case http.MethodPost:
		st.inflight--
	case http.MethodGet:
		st.streams--
	}
	if cur := t.live[id]; cur == st {
		st.lastSeen = t.now()
		switch {
		case r.Method == http.MethodDelete && sw.status/100 == 2:
			delete(t.live, id)
			t.logger.Info("MCP session ended by client", "session", id)
		case sw.status == http.StatusNotFound:
			delete(t.live, id) // the SDK no longer knows it
		}
	}
	t.mu.Unlock()
}

// statusWriter records the response status. It forwards Flush and exposes
// the underlying writer for http.ResponseController (SSE streaming).
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sessionCapture registers the session id the SDK puts on a successful
// initialize response before the response reaches the client, so the
// client's next request always finds it.
type sessionCapture struct {
	http.ResponseWriter
	table *sessionTable
	done  bool
	id    string // registered session id
}

func (w *sessionCapture) capture(code int) {
	if w.done {
		return
	}
	w.done = true
	if id := w.Header().Get("Mcp-Session-Id"); id != "" && code/100 == 2 {
		w.id = id
		w.table.register(id)
	}
}

func (w *sessionCapture) WriteHeader(code int) {
	w.capture(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionCapture) Write(b []byte) (int, error) {
	w.capture(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

func (w *sessionCapture) Flush() {
	w.capture(http.StatusOK)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *sessionCapture) Unwrap() http.ResponseWriter { return w.ResponseWriter }
