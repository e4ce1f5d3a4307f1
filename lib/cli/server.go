package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/audit"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/mcphttp"
	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/tokens"
	"github.com/dir2mcp/dir2mcp/lib/vector"
	"github.com/dir2mcp/dir2mcp/lib/x402"
	ucli "github.com/urfave/cli/v3"
)

// serverFlags are the `up`/`serve` flags (SPEC §2.3).
func serverFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "listen", Usage: "`host:port` to listen on (default 127.0.0.1:0, a free port)"},
		&ucli.StringFlag{Name: "mcp-path", Usage: "MCP endpoint `path` (default /mcp)"},
		&ucli.BoolFlag{Name: "public", Usage: "listen on all interfaces (requires auth)"},
		&ucli.StringFlag{Name: "auth", Usage: "auto | none | file:`PATH` (never pass a token on the command line)"},
		&ucli.StringFlag{Name: "tls-cert", Usage: "TLS certificate `file` (PEM)"},
		&ucli.StringFlag{Name: "tls-key", Usage: "TLS private key `file` (PEM)"},
		&ucli.StringFlag{Name: "x402", Usage: "payments: off | on | required"},
		&ucli.StringFlag{Name: "x402-facilitator-url", Usage: "x402 facilitator `URL`"},
		&ucli.StringFlag{Name: "x402-resource-base-url", Usage: "public base `URL` used in payment requirements"},
		&ucli.StringFlag{Name: "x402-network", Usage: "CAIP-2 network `id`, e.g. eip155:8453"},
		&ucli.StringFlag{Name: "x402-price", Usage: "default per-call `price`"},
		&ucli.BoolFlag{Name: "read-only", Usage: "serve only tools that never write to the index (hides transcribe, annotate, transcribe_and_ask)"},
		&ucli.StringFlag{Name: "tools", Usage: "serve only these tools, for every client and token: a comma-separated `list` such as search,open_file,list_files (server.tools)"},
		&ucli.BoolFlag{Name: "stdio", Usage: "serve MCP over stdin/stdout instead of HTTP (for clients that launch servers); logs and events go to stderr"},
	}
}

// service is a running MCP server over a state directory, on HTTP or on
// stdin/stdout.
type service struct {
	e       *env
	store   *store.Store
	engine  *retrieve.Engine
	vectors map[string]*vector.Reloader
	mcp     *mcpserver.Server
	models  func() state.Models // named at the first stats call
	stdio   bool
	served  chan error // receives once when serving stops
	// pending is signalled when a tool stored chunks awaiting embedding.
	pending chan struct{}

	audit *audit.Log // nil: audit.enabled is off

	// HTTP only.
	ln      net.Listener
	http    *http.Server
	handler *mcphttp.Handler
	url     string
	token   state.Token
	conn    connOwner
	tokens  *tokens.Registry // scoped tokens (nil without auth)

	payments *x402.Gate // nil when x402 is off

	warmMu   sync.Mutex
	warmOnce sync.Once
	warming  sync.WaitGroup // the warm-up, which shutdown waits for (it reads the store)
	closing  bool           // shutdown has begun: no warm-up starts
}

// resourcePoll is how often a server re-reads the index for resource list
// changes another process made.
const resourcePoll = 3 * time.Second

// startService serves MCP over st: on stdin/stdout with --stdio, else on
// the configured HTTP listener. status reports the indexing job (nil: read
// corpus.json). It returns once the server is accepting requests; serving
// stops when ctx ends.
func startService(ctx context.Context, e *env, st *store.Store, status func(context.Context) indexer.Status) (*service, error) {
	s := &service{e: e, store: st, stdio: e.cmd.Bool("stdio"), served: make(chan error, 1)}
	if !s.stdio {
		tok, err := resolveToken(e)
		if err != nil {
			return nil, err
		}
		events.RegisterSecret(tok.Value)
		s.token = tok
	}
	if err := s.open(status); err != nil {
		return nil, err
	}
	go s.mcp.WatchResources(ctx, resourcePoll)
	go trimWhenIdle(ctx, idleTrim, s.mcp.Calls, debug.FreeOSMemory)
	if s.tokens != nil {
		go s.flushTokenUse(ctx)
	}
	if s.payments != nil {
		go probePayments(ctx, e, s.payments)
	}
	if s.stdio {
		go func() { s.served <- s.mcp.ServeStdio(ctx) }()
		return s, nil
	}
	if err := s.listen(); err != nil {
		s.engine.Close()
		return nil, err
	}
	return s, nil
}

// warm starts loading, in the background, what the server otherwise loads
// on first use: the vector files, the resource list, the built-in
// redaction rules, the offline embedder's token table. A server that
// indexes calls it once its first index run is done (or after warmAfter),
// so a restart's no-op run has the CPU to itself; serve calls it once it
// listens. Calls after the first do nothing. The chunks' refs are
// warmRefs'.
func (s *service) warm() {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if s.closing {
		return
	}
	s.warmOnce.Do(func() {
		s.engine.StartVectors()
		s.warming.Add(1)
		go func() {
			defer s.warming.Done()
			s.mcp.Warm()
			if r, err := indexer.Redactor(s.e.cfg); err == nil {
				r.Compile()
			}
			seen := map[embed.Embedder]bool{}
			for _, emb := range s.engine.Embedders {
				if !seen[emb] {
					seen[emb] = true
					_ = embed.Load(emb) // a failure shows when embedding
				}
			}
			// Return the loads' garbage before idling (as after an
			// index run, keepIndexed).
			debug.FreeOSMemory()
		}()
	})
}

// warmRefs loads every chunk's ref into the engine's ref cache in the
// background (retrieve.Engine.WarmRefs), unless shutdown has begun: a
// server calls it once it serves an index and after each index run,
// whose commits emptied the cache. On failure searches read refs as they
// go, and a notice says why.
func (s *service) warmRefs() {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if s.closing {
		return
	}
	s.warming.Add(1)
	go func() {
		defer s.warming.Done()
		if err := s.engine.WarmRefs(context.Background()); err != nil {
			s.e.ev.Emit(events.Warn, record.EvNotice, map[string]any{
				"message": "loading the chunk refs ahead of searches failed (searches read them as they go): " + errcode.As(err).Message})
		}
		debug.FreeOSMemory() // the load's garbage (grown maps, scanned rows)
	}()
}

// warmAfter is how long a server that indexes waits for its first index
// run before it warms up anyway (see warm).
const warmAfter = 10 * time.Second

// open builds the retrieval engine and the MCP server.
func (s *service) open(status func(context.Context) indexer.Status) error {
	e, cfg := s.e, s.e.cfg
	embs, err := embedders.Open(cfg)
	if err != nil {
		return err
	}
	ex, err := exclude.New(cfg.Security.PathExcludes, cfg.Security.SecretPatterns)
	if err != nil {
		return err
	}
	if err := mcpserver.CheckControls(cfg); err != nil {
		return err
	}
	if s.token.Value != "" {
		if s.tokens, err = tokens.NewRegistry(e.dir.Join(tokens.FileName), e.dir.Join(tokens.UsageName)); err != nil {
			return err
		}
	}
	if cfg.Audit.Enabled {
		if err := e.dir.Ensure(); err != nil {
			return err
		}
		s.audit, err = audit.Open(audit.Options{Path: e.dir.Join(state.AuditLog), MaxBytes: cfg.Audit.MaxBytes, Keep: cfg.Audit.Keep,
			OnError: func(err error) {
				e.ev.Emit(events.Warn, record.EvNotice, map[string]any{"message": "audit log: " + err.Error()})
			}})
		if err != nil {
			return errcode.Wrap(errcode.StoreCorrupt, err, "cannot open the audit log %s: %v", e.dir.Join(state.AuditLog), err)
		}
	}
	ids := map[string]string{}
	for kind, emb := range embs {
		ids[kind] = emb.ID()
	}
	s.models = sync.OnceValue(func() state.Models { return e.modelNames(ids) })
	// The vector files load when the server warms up (or a search needs
	// them), not while a restart's no-op index run walks the tree.
	s.engine = retrieve.OpenDeferred(s.store, e.dir, cfg, embs, time.Second)
	s.vectors = s.engine.Vectors
	if status != nil {
		s.engine.Complete = func() bool { return !status(context.Background()).Running }
	} else {
		indexing := e.dir.WatchIndexing()
		s.engine.Complete = func() bool {
			running, err := indexing.Running()
			return err == nil && !running
		}
	}
	providers, err := e.providers()
	if err != nil {
		return err
	}
	s.pending = make(chan struct{}, 1)
	s.mcp = &mcpserver.Server{
		Engine: s.engine, Store: s.store, Root: e.root, Dir: e.dir, Exclude: ex, Config: cfg, Models: s.models,
		Status: status, Logger: serverLogger(e), Events: e.ev, Providers: providers,
		Replica:  e.replica,
		ReadOnly: hasFlag(e.cmd, "read-only") && e.cmd.Bool("read-only"),
		Audit:    s.audit,
		Pending: func() {
			select {
			case s.pending <- struct{}{}:
			default:
			}
		},
	}
	s.mcp.MCP()
	if s.payments, err = openPayments(e, s.mcp); err != nil {
		s.engine.Close()
		return err
	}
	return nil
}

// listen binds the HTTP listener (TLS when configured) and serves.
func (s *service) listen() error {
	e, cfg := s.e, s.e.cfg
	var tlsCfg *tls.Config
	if cfg.Server.TLS.Enabled || cfg.Server.TLS.CertFile != "" || cfg.Server.TLS.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.Server.TLS.CertFile, cfg.Server.TLS.KeyFile)
		if err != nil {
			return errcode.Wrap(errcode.TLSConfigInvalid, err, "cannot load TLS certificate %q / key %q: %v", cfg.Server.TLS.CertFile, cfg.Server.TLS.KeyFile, err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	listen := cfg.Server.Listen
	if cfg.Server.Public {
		_, port, err := net.SplitHostPort(listen)
		if err != nil {
			port = "0"
		}
		listen = net.JoinHostPort("0.0.0.0", port)
	}
	host, _, _ := net.SplitHostPort(listen)
	if s.token.Value == "" && !mcphttp.IsLoopback(host) {
		return errcode.FieldError(errcode.ConfigInvalid, "security.auth.mode",
			"--auth none is only allowed on a loopback address; %s is reachable from other machines (use a token)", listen)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return errcode.Wrap(errcode.BindFailed, err, "cannot listen on %s: %v", listen, err)
	}
	s.ln = ln
	scheme := "http"
	if tlsCfg != nil {
		scheme = "https"
	}
	addr := ln.Addr().(*net.TCPAddr)
	urlHost := addr.IP.String()
	if addr.IP.IsUnspecified() {
		urlHost = "127.0.0.1"
	}
	s.url = fmt.Sprintf("%s://%s%s", scheme, net.JoinHostPort(urlHost, fmt.Sprint(addr.Port)), cfg.Server.MCPPath)
	rl := cfg.Server.RateLimit
	s.handler = mcphttp.New(s.mcp.MCP(), mcphttp.Options{
		Path: cfg.Server.MCPPath, Token: s.token.Value, AllowedOrigins: cfg.Security.AllowedOrigins,
		AllowedHosts:   allowedHosts(cfg),
		SessionTimeout: cfg.Server.SessionInactivityTimeout.Std(), SessionMaxLifetime: cfg.Server.SessionMaxLifetime.Std(),
		MaxBodyBytes: cfg.Server.MaxBodyBytes, RPS: rl.RPS, Burst: rl.Burst, LimitLoopback: rl.Loopback,
		Payments: s.payments, Logger: serverLogger(e), SDKLogger: sdkLogger(e),
		Tokens: s.tokens, Audit: s.audit, Health: e.health(),
	})
	s.http = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         tlsCfg,
		ErrorLog:          slog.NewLogLogger(serverLogger(e).Handler(), slog.LevelWarn),
	}
	go func() {
		var err error
		if tlsCfg != nil {
			err = s.http.ServeTLS(ln, "", "")
		} else {
			err = s.http.Serve(ln)
		}
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.served <- err
	}()
	return nil
}

// allowedHosts are the Host names accepted besides IP literals and
// localhost: security.allowed_hosts, the hosts of security.allowed_origins
// and this machine's hostname (names a DNS-rebinding page cannot control).
func allowedHosts(cfg *config.Config) []string {
	hosts := append([]string{}, cfg.Security.AllowedHosts...)
	for _, o := range cfg.Security.AllowedOrigins {
		if u, err := url.Parse(o); err == nil && u.Hostname() != "" {
			hosts = append(hosts, u.Hostname())
		}
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		hosts = append(hosts, h, h+".local")
	}
	return hosts
}

// serverLogger logs the server's own events (session expiry, refusals,
// tool failures) as notice events, in the format of every other event
// (human lines on stderr, or NDJSON with --json), redacted.
func serverLogger(e *env) *slog.Logger {
	return slog.New(e.ev.LogHandler(slog.LevelInfo))
}

// sdkLogger carries the MCP SDK's transport diagnostics: warnings only,
// in the same format.
func sdkLogger(e *env) *slog.Logger {
	return slog.New(e.ev.LogHandler(slog.LevelWarn))
}

// connection is the connection block for clients.
func (s *service) connection() state.Connection {
	return state.NewConnection(s.url, s.token)
}

// announce writes connection.json and prints the SPEC §3.1 block (or the
// server_started and connection events).
func (s *service) announce(mode string) error {
	e := s.e
	if s.stdio {
		e.ev.Emit(events.Info, record.EvServerStarted, map[string]any{
			"transport": "stdio", "protocol_version": state.ProtocolVersion, "state_dir": e.dir.Path, "root": e.root.Dir(),
			"message": fmt.Sprintf("MCP over stdio (stdin/stdout), index %s%s", e.dir.Path, modeNote(mode)),
		})
		return nil
	}
	conn := s.connection()
	if err := s.ownConnection(conn); err != nil {
		return err
	}
	if e.jsonOut {
		e.ev.Emit(events.Info, record.EvServerStarted, map[string]any{
			"listen": s.ln.Addr().String(), "url": s.url, "mcp_path": e.cfg.Server.MCPPath,
			"protocol_version": state.ProtocolVersion, "state_dir": e.dir.Path, "root": e.root.Dir(),
		})
		data := map[string]any{
			"transport": conn.Transport, "url": conn.URL, "headers": conn.Headers, "token_source": conn.TokenSource,
		}
		if conn.TokenFile != "" {
			data["token_file"] = conn.TokenFile
		}
		if conn.TokenEnv != "" {
			data["token_env"] = conn.TokenEnv
		}
		e.ev.Emit(events.Info, record.EvConnection, data)
		return nil
	}
	if e.cmd.Bool("quiet") {
		return nil
	}
	w := e.stdout
	fmt.Fprintf(w, "Index: %s  (%s + %s + %s)\n", e.dir.Path, store.FileName, vector.FileName(record.KindText), vector.FileName(record.KindCode))
	if mode != "" {
		fmt.Fprintf(w, "Mode: %s  (server-first; indexing in background)\n", mode)
	}
	fmt.Fprintf(w, "\nMCP endpoint:\n  URL:    %s\n", s.url)
	if s.token.Source == "" {
		fmt.Fprintf(w, "  Auth:   none (loopback only)\n")
	} else {
		fmt.Fprintf(w, "  Auth:   Bearer (%s)\n", s.token.Describe())
	}
	fmt.Fprintf(w, "  Headers:\n    MCP-Protocol-Version: %s\n", state.ProtocolVersion)
	if s.token.Source != "" {
		fmt.Fprintf(w, "    Authorization: Bearer <token>\n")
	}
	fmt.Fprintf(w, "    MCP-Session-Id: (assigned after initialize response)\n\n")
	return nil
}

func modeNote(mode string) string {
	if mode == "" {
		return ""
	}
	return "; " + mode + " indexing in background"
}

// refresh makes a just-written vector file of kind visible to searches.
// It also updates the resource list, so files the job added or removed
// show up (with notifications/resources/list_changed) without waiting for
// the periodic poll.
func (s *service) refresh(kind string) {
	s.reloadVectors(kind)
	_ = s.mcp.Refresh(context.Background())
}

// reloadVectors loads kind's vector file if it changed on disk.
func (s *service) reloadVectors(kind string) {
	if r := s.vectors[kind]; r != nil {
		if err := r.Refresh(); err != nil {
			s.e.ev.Emit(events.Warn, record.EvNotice, map[string]any{"message": "reloading " + kind + " vectors: " + err.Error()})
		}
	}
}

// refreshIndexes makes every vector file and the keyword index as they
// are on disk now visible to searches (another writer in this process
// changed them: a replica), and updates the resource list.
func (s *service) refreshIndexes() {
	for kind := range s.vectors {
		s.reloadVectors(kind)
	}
	if kw := s.engine.Keywords; kw != nil {
		if err := kw.Refresh(); err != nil {
			s.e.ev.Emit(events.Warn, record.EvNotice, map[string]any{"message": "reloading the keyword index: " + err.Error()})
		}
	}
	_ = s.mcp.Refresh(context.Background())
}

// shutdown stops accepting requests, ends the sessions and waits briefly
// for in-flight requests.
func (s *service) shutdown() error {
	var err error
	s.warmMu.Lock()
	s.closing = true
	s.warmMu.Unlock()
	defer s.warming.Wait() // before the caller closes the store
	if s.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.handler.Close()
		err = s.http.Shutdown(ctx)
		err = errors.Join(err, s.conn.release(s.e.dir))
	}
	s.engine.Close()
	if s.payments != nil {
		err = errors.Join(err, s.payments.Close())
	}
	if s.tokens != nil {
		err = errors.Join(err, s.tokens.Flush())
	}
	return errors.Join(err, s.audit.Close())
}

// flushTokenUse records when scoped tokens were last used (token list
// shows it), every tokenFlush until ctx ends.
func (s *service) flushTokenUse(ctx context.Context) {
	t := time.NewTicker(tokenFlush)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.tokens.Flush(); err != nil {
				s.e.ev.Emit(events.Warn, record.EvNotice, map[string]any{"message": err.Error()})
			}
		}
	}
}

// tokenFlush is how often a server writes token last-use times (only
// when one changed).
const tokenFlush = 2 * time.Second

// resolveToken finds the bearer token per security.auth (SPEC §10.6, §17).
func resolveToken(e *env) (state.Token, error) {
	a := e.cfg.Security.Auth
	switch a.Mode {
	case "none":
		if e.cfg.Server.Public {
			return state.Token{}, errcode.FieldError(errcode.ConfigInvalid, "security.auth.mode", "--public requires auth; --auth none is refused")
		}
		return state.Token{}, nil
	case "file":
		return state.ReadTokenFile(a.TokenFile)
	}
	if name := a.TokenEnv; name != "" {
		if v, ok := os.LookupEnv(name); ok && strings.TrimSpace(v) != "" {
			v = strings.TrimSpace(v)
			if len(v) < 16 {
				return state.Token{}, errcode.FieldError(errcode.ConfigInvalid, name, "$%s must hold a token of at least 16 characters", name)
			}
			return state.Token{Value: v, Source: "env", EnvName: name}, nil
		}
	}
	if a.TokenFile != "" {
		return state.ReadTokenFile(a.TokenFile)
	}
	return e.dir.EnsureToken()
}
