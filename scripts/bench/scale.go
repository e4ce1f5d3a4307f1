package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/heapprof"
	"github.com/dir2mcp/dir2mcp/lib/mcpclient"
)

// A scaleCorpus is one column of the scale table: a tree and the
// environment every dir2mcp process indexing or serving it gets.
type scaleCorpus struct {
	name, dir string
	env       []string
	fake      *fakeEmbeddings // the provider behind env, if any
}

// scaleResult is what the scale section measured on one corpus.
type scaleResult struct {
	files                   int
	bytes                   int64
	walk                    time.Duration // the first plain walk (cold)
	index                   time.Duration
	peakKB                  int64
	growth                  string
	chunks                  int64
	sqliteBytes, vecBytes   int64
	kwBytes                 int64         // the keyword index (postings files)
	split                   connectSplit  // of the first restart
	restarts                []restartRun  // every no-op restart (the first one searched)
	cpuCheck                time.Duration // cpuCheck just before the searches
	idleKB, afterLoadKB     int64
	idleFileKB, afterFileKB int64 // of which file-backed (mapped vector segments, the binary)
	p50, p99                time.Duration
	load, light             load // go-sdk clients; light clients (lightSearcher)
	embedInputs             int64
	indexLoad, restartLoad  string
	recall                  vecRecall
}

// scaleOptions configures the scale section.
type scaleOptions struct {
	bin        string
	qs         []string
	clients    int
	loadTime   time.Duration
	linux      bool   // add the Linux kernel source (minutes of CPU)
	profileDir string // heap profiles of every dir2mcp process, "" for none
	keep       bool
}

// providerDim is the width of the fake provider's vectors (OpenAI
// text-embedding-3-small, codestral-embed).
const providerDim = 1536

// scale measures every corpus in one run and prints one table, a column
// per corpus.
func scale(o scaleOptions) error {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %v", err)
	}
	gosrc := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	fake, err := startFakeEmbeddings(providerDim)
	if err != nil {
		return err
	}
	defer fake.close()
	corpora := []scaleCorpus{
		{name: "Go tree, offline", dir: gosrc},
		{name: fmt.Sprintf("Go tree, %d-d provider", providerDim), dir: gosrc, fake: fake, env: []string{
			"DIR2MCP_EMBED_PROVIDER=openai", "DIR2MCP_OPENAI_BASE_URL=" + fake.url, "OPENAI_API_KEY=" + fakeKey,
			"DIR2MCP_OPENAI_EMBED_TEXT_MODEL=text-embedding-3-small", "DIR2MCP_OPENAI_EMBED_CODE_MODEL=text-embedding-3-small",
		}},
	}
	if o.linux {
		dir, err := linuxSource()
		if err != nil {
			return err
		}
		// The package's top-level .gitignore ends with "/*": honoured,
		// it leaves nothing to index.
		corpora = append(corpora, scaleCorpus{name: "Linux source, offline", dir: dir, env: []string{"DIR2MCP_INGEST_GITIGNORE=false"}})
	}
	var res []scaleResult
	for _, c := range corpora {
		fmt.Printf("== %s: %s\n", c.name, c.dir)
		r, err := measureCorpus(c, o)
		if err != nil {
			return fmt.Errorf("%s: %v", c.name, err)
		}
		res = append(res, r)
	}
	scaleTable(corpora, res)
	return nil
}

// measureCorpus indexes c afresh, restarts on the unchanged index and
// measures search over MCP.
func measureCorpus(c scaleCorpus, o scaleOptions) (scaleResult, error) {
	var r scaleResult
	state, err := os.MkdirTemp("", "dir2mcp-bench-scale-")
	if err != nil {
		return r, err
	}
	if o.keep {
		fmt.Println("  state dir", state)
	} else {
		defer os.RemoveAll(state)
	}
	r.files, r.bytes, r.walk = plainWalk(c.dir)
	r.indexLoad = loadAvg()
	var inputs0 int64
	if c.fake != nil {
		inputs0 = c.fake.inputs.Load()
	}
	ix, err := indexRun(o.bin, c.dir, state, c.env, profile(o, c, "index"))
	if err != nil {
		return r, err
	}
	r.index, r.peakKB, r.growth, r.chunks = ix.took, ix.peakKB, ix.growth, ix.chunks
	if c.fake != nil {
		r.embedInputs = c.fake.inputs.Load() - inputs0
	}
	r.sqliteBytes, r.vecBytes, r.kwBytes = stateSizes(state)
	fmt.Printf("  indexed in %s, peak RSS %s, %d chunks\n", r.index.Round(time.Second), mb(r.peakKB), r.chunks)

	// A no-op restart: `up` on the unchanged tree.
	_, _, walk := plainWalk(c.dir)
	r.restartLoad = loadAvg()
	up, err := startUp(o.bin, c.dir, state, c.env, profile(o, c, "up"))
	if err != nil {
		return r, err
	}
	defer up.stop()
	r.split = up.split
	r.restarts = []restartRun{{walk: walk, connect: up.connect, settled: up.settled}}
	// The one-shot index leaves its keyword index in many segments; the
	// server merges them once idle (postings.Writer.Settle). Searches are
	// timed on the settled index, and the wait is printed.
	if err := awaitKeywordsSettled(up.client); err != nil {
		return r, err
	}
	time.Sleep(3 * time.Second) // idle: nothing asked of it since it settled
	r.idleKB, r.idleFileKB = procStatusKB(up.pid, "VmRSS"), procStatusKB(up.pid, "RssFile")
	r.cpuCheck = cpuCheck()
	lat, _, err := searchLatency(up.client, o.qs)
	if err != nil {
		return r, err
	}
	r.p50, r.p99 = pct(lat, 50), pct(lat, 99)
	if o.clients > 0 {
		if r.load, r.light, err = loadBoth(up.opts, o.qs, o.clients, o.loadTime); err != nil {
			return r, err
		}
	}
	r.afterLoadKB, r.afterFileKB = procStatusKB(up.pid, "VmRSS"), procStatusKB(up.pid, "RssFile")
	// After every timed measurement: it reads every vector once per query.
	r.recall = vectorRecall(state, c, o.qs)
	fmt.Printf("  vector recall@10 vs exact: %s\n", r.recall)
	up.stop()
	// More no-op restarts, each after its own walk: one sample of a
	// ~50 ms walk and a ~100 ms start swings with the VM, so the table
	// gives the medians and ranges of restartRounds.
	for range restartRounds - 1 {
		var rr restartRun
		_, _, rr.walk = plainWalk(c.dir)
		again, err := startUp(o.bin, c.dir, state, c.env, "")
		if err != nil {
			return r, err
		}
		rr.connect, rr.settled = again.connect, again.settled
		again.stop()
		r.restarts = append(r.restarts, rr)
	}
	return r, nil
}

// restartRounds is how many no-op restarts the scale section times per
// corpus.
const restartRounds = 3

// medianRange returns the median of v (the upper one of an even number),
// its least and its greatest element, sorting v.
func medianRange[T cmp.Ordered](v []T) (med, lo, hi T) {
	slices.Sort(v)
	return v[len(v)/2], v[0], v[len(v)-1]
}

// restartSpread formats f's median over the restarts with its range,
// rounded to unit.
func restartSpread(runs []restartRun, unit time.Duration, f func(restartRun) time.Duration) string {
	v := make([]time.Duration, len(runs))
	for i, x := range runs {
		v[i] = f(x)
	}
	med, lo, hi := medianRange(v)
	return fmt.Sprintf("%s (%s–%s)", med.Round(unit), lo.Round(unit), hi.Round(unit))
}

// settledRatio is the median over the restarts of settled ÷ the walk
// just before, with its range.
func settledRatio(runs []restartRun) string {
	v := make([]float64, len(runs))
	for i, x := range runs {
		v[i] = x.settled.Seconds() / x.walk.Seconds()
	}
	med, lo, hi := medianRange(v)
	return fmt.Sprintf("%.1f× (%.1f–%.1f)", med, lo, hi)
}

// profile is the heap profile file of one dir2mcp process, "" without
// -heap-profile.
func profile(o scaleOptions, c scaleCorpus, step string) string {
	if o.profileDir == "" {
		return ""
	}
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(c.name))
	return filepath.Join(o.profileDir, name+"-"+step+".pprof")
}

// indexed is one `dir2mcp index` run.
type indexed struct {
	took   time.Duration
	peakKB int64 // VmHWM of the dir2mcp process
	growth string
	chunks int64
}

// indexRun runs `dir2mcp index` over corpus into state with extra
// environment env, sampling the process's VmHWM.
func indexRun(bin, corpus, state string, env []string, heapProfile string) (indexed, error) {
	var ix indexed
	start := time.Now()
	cmd, stdout, err := startDir2mcp(bin, env, heapProfile, "index", "--dir", corpus, "--state-dir", state, "--json", "--non-interactive")
	if err != nil {
		return ix, err
	}
	w := watchRSS(cmd.Process.Pid)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if ln := sc.Text(); strings.Contains(ln, `"index_complete"`) {
			var ev struct{ Data map[string]any }
			json.Unmarshal([]byte(ln), &ev)
			if n, ok := ev.Data["chunks_total"].(float64); ok {
				ix.chunks = int64(n)
			}
			fmt.Printf("  %v\n", ev.Data["message"])
		}
	}
	err = cmd.Wait()
	ix.took = time.Since(start)
	ix.peakKB, ix.growth = w.stop(), w.growth()
	if err != nil {
		return ix, fmt.Errorf("dir2mcp index: %v", err)
	}
	return ix, nil
}

// startDir2mcp starts bin with args and extra environment env (and the
// heap profile file, if any), its stderr on ours, and returns its stdout.
func startDir2mcp(bin string, env []string, heapProfile string, args ...string) (*exec.Cmd, io.ReadCloser, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	if heapProfile != "" {
		cmd.Env = append(cmd.Env, heapprof.EnvVar+"="+heapProfile)
	}
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	return cmd, stdout, err
}

// stateSizes sums the SQLite files (meta.sqlite with its WAL), the
// vector files and segments, and the keyword index's files of a state
// dir.
func stateSizes(state string) (sqlite, vectors, keywords int64) {
	filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		// The top-level name: vector segments live in directories
		// (vectors_code.segs/).
		rel, _ := filepath.Rel(state, p)
		switch top, _, _ := strings.Cut(filepath.ToSlash(rel), "/"); {
		case strings.HasPrefix(top, "meta.sqlite"):
			sqlite += fi.Size()
		case strings.HasPrefix(top, "vectors"):
			vectors += fi.Size()
		case strings.HasPrefix(top, "postings"):
			keywords += fi.Size()
		}
		return nil
	})
	return sqlite, vectors, keywords
}

// upServer is a running `dir2mcp up` with a connected client.
type upServer struct {
	pid              int
	client           *mcpclient.Client
	opts             mcpclient.Options
	connect, settled time.Duration
	split            connectSplit
	settledCPU       time.Duration // the server's CPU time (user+sys) when it settled
	stop             func()        // closes the client and stops up; safe to call again
}

// connectSplit is where a restart's connect time goes, each from the
// process start: the connection event on stdout, the session
// initialized, the first ping answered.
type connectSplit struct {
	event, initialized, ping time.Duration
}

func (c connectSplit) String() string {
	r := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	return r(c.event) + " / " + r(c.initialized) + " / " + r(c.ping)
}

// startUp starts `dir2mcp up` over an existing index and returns once its
// no-op scan has completed: connect is the time from start to the first
// answered MCP call, settled to the index_complete event.
func startUp(bin, corpus, state string, env []string, heapProfile string) (*upServer, error) {
	begin := time.Now()
	// Many clients on one address: the per-client rate limit is not what is measured.
	cmd, stdout, err := startDir2mcp(bin, append(env, "DIR2MCP_SERVER_RATE_LIMIT_RPS=0"), heapProfile,
		"up", "--dir", corpus, "--state-dir", state, "--json", "--non-interactive", "--listen", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	u := &upServer{pid: cmd.Process.Pid}
	kill := func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }
	type settled struct{ took, cpu time.Duration }
	connected, complete := make(chan struct{}), make(chan settled, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		seen := false
		for sc.Scan() {
			ln := sc.Text()
			if !seen && strings.Contains(ln, `"event":"connection"`) {
				seen = true
				close(connected)
			}
			if strings.Contains(ln, `"event":"index_complete"`) {
				select {
				case complete <- settled{time.Since(begin), procCPU(u.pid)}:
				default:
				}
			}
		}
	}()
	select {
	case <-connected:
	case <-time.After(60 * time.Second):
		kill()
		return nil, fmt.Errorf("up printed no connection event within 60s")
	}
	u.split.event = time.Since(begin)
	ctx := context.Background()
	u.opts, err = mcpclient.FromStateDir(state)
	if err == nil {
		u.client, err = mcpclient.Dial(ctx, u.opts)
		u.split.initialized = time.Since(begin)
	}
	if err == nil {
		err = u.client.Session.Ping(ctx, nil)
	}
	if err != nil {
		kill()
		return nil, err
	}
	u.connect = time.Since(begin)
	u.split.ping = u.connect
	select {
	case s := <-complete:
		u.settled, u.settledCPU = s.took, s.cpu
	case <-time.After(10 * time.Minute):
		u.client.Close()
		kill()
		return nil, fmt.Errorf("up: no index_complete within 10 minutes")
	}
	serverCPU = func() time.Duration { return procCPU(u.pid) }
	var once sync.Once
	u.stop = func() { once.Do(func() { u.client.Close(); kill() }) }
	return u, nil
}

// linuxSource returns the unpacked Linux kernel source of Debian's
// linux-source-6.1 package, fetched (apt-get download) and unpacked under
// $TMPDIR/dir2mcp-bench on first use, outside the repository.
func linuxSource() (string, error) {
	base := filepath.Join(os.TempDir(), "dir2mcp-bench")
	tree := filepath.Join(base, "linux")
	done := filepath.Join(tree, ".unpacked")
	if _, err := os.Stat(done); err != nil {
		fmt.Println("  fetching and unpacking linux-source-6.1 into", tree, "(once)")
		if err := os.MkdirAll(tree, 0o755); err != nil {
			return "", err
		}
		debs, _ := filepath.Glob(filepath.Join(base, "linux-source-6.1_*.deb"))
		if len(debs) == 0 {
			if err := runIn(base, "apt-get", "download", "linux-source-6.1"); err != nil {
				return "", err
			}
		}
		debs, _ = filepath.Glob(filepath.Join(base, "linux-source-6.1_*.deb"))
		if len(debs) == 0 {
			return "", fmt.Errorf("apt-get download linux-source-6.1 left no .deb in %s", base)
		}
		pkg := filepath.Join(base, "pkg")
		defer os.RemoveAll(pkg)
		if err := runIn(base, "dpkg-deb", "-x", debs[0], pkg); err != nil {
			return "", err
		}
		tars, _ := filepath.Glob(filepath.Join(pkg, "usr/src/linux-source-*.tar.*"))
		if len(tars) == 0 {
			return "", fmt.Errorf("%s holds no usr/src/linux-source-*.tar.*", debs[0])
		}
		if err := runIn(base, "tar", "-xf", tars[0], "-C", tree); err != nil {
			return "", err
		}
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			return "", err
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(tree, "linux-source-*"))
	if len(dirs) != 1 {
		return "", fmt.Errorf("%s: want one linux-source-* directory, found %d (remove %s to unpack again)", tree, len(dirs), done)
	}
	return dirs[0], nil
}

// runIn runs a command in dir, its output on stderr.
func runIn(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return nil
}

// loadAvg is the 1-minute load average of the machine.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// scaleTable prints one markdown table, a column per corpus.
func scaleTable(cs []scaleCorpus, rs []scaleResult) {
	rows := []struct {
		name string
		f    func(r scaleResult) string
	}{
		{"files / size", func(r scaleResult) string { return fmt.Sprintf("%d / %.0f MB", r.files, float64(r.bytes)/1e6) }},
		{"chunks", func(r scaleResult) string { return fmt.Sprint(r.chunks) }},
		{"full index", func(r scaleResult) string { return r.index.Round(100 * time.Millisecond).String() }},
		{"peak RSS while indexing (VmHWM)", func(r scaleResult) string { return mb(r.peakKB) }},
		{"  RSS growth", func(r scaleResult) string { return r.growth }},
		{"provider inputs embedded", func(r scaleResult) string {
			if r.embedInputs == 0 {
				return "–"
			}
			return fmt.Sprint(r.embedInputs)
		}},
		{"on disk: SQLite / vectors / keyword index", func(r scaleResult) string {
			return fmt.Sprintf("%.0f MB / %.0f MB / %.0f MB", float64(r.sqliteBytes)/1e6, float64(r.vecBytes)/1e6, float64(r.kwBytes)/1e6)
		}},
		{"CPU check before the searches: sorting 1M integers, median of 5", func(r scaleResult) string {
			return r.cpuCheck.Round(100 * time.Microsecond).String()
		}},
		{"search p50 / p99 over MCP, k=10", func(r scaleResult) string { return r.p50.String() + " / " + r.p99.String() }},
		{"vector recall@10 vs exact", func(r scaleResult) string { return r.recall.String() }},
		{"concurrent go-sdk clients: search calls/s", func(r scaleResult) string { return r.load.rate() }},
		{"  errors / p50 / p99", func(r scaleResult) string { return r.load.latencies() }},
		{"  CPU per call: server / clients", func(r scaleResult) string { return r.load.cpu() }},
		{"concurrent light clients: search calls/s", func(r scaleResult) string { return r.light.rate() }},
		{"  errors / p50 / p99", func(r scaleResult) string { return r.light.latencies() }},
		{"  CPU per call: server / clients", func(r scaleResult) string { return r.light.cpu() }},
		{"idle RSS after a no-op restart", func(r scaleResult) string { return mb(r.idleKB) + " (file " + mb(r.idleFileKB) + ")" }},
		{"  RSS after the searches", func(r scaleResult) string { return mb(r.afterLoadKB) + " (file " + mb(r.afterFileKB) + ")" }},
		{fmt.Sprintf("no-op restart: connect, median (range) of %d", restartRounds), func(r scaleResult) string {
			return restartSpread(r.restarts, 10*time.Millisecond, func(x restartRun) time.Duration { return x.connect })
		}},
		{"  settled", func(r scaleResult) string {
			return restartSpread(r.restarts, 10*time.Millisecond, func(x restartRun) time.Duration { return x.settled })
		}},
		{"  connect split of the first: connection event / initialized / ping", func(r scaleResult) string { return r.split.String() }},
		{"plain lstat walk (first / before each restart)", func(r scaleResult) string {
			return r.walk.Round(time.Millisecond).String() + " / " + restartSpread(r.restarts, time.Millisecond, func(x restartRun) time.Duration { return x.walk })
		}},
		{"  settled ÷ walk before it", func(r scaleResult) string { return settledRatio(r.restarts) }},
		{"load avg: index / restart", func(r scaleResult) string { return r.indexLoad + " / " + r.restartLoad }},
	}
	fmt.Println()
	fmt.Print("| measure |")
	for _, c := range cs {
		fmt.Printf(" %s |", c.name)
	}
	fmt.Print("\n|---|")
	for range cs {
		fmt.Print("---|")
	}
	fmt.Println()
	for _, row := range rows {
		fmt.Printf("| %s |", row.name)
		for _, r := range rs {
			fmt.Printf(" %s |", row.f(r))
		}
		fmt.Println()
	}
}

// keywordsSettledSegments is the most segments the server leaves an idle
// keyword index in (postings.settleMin).
const keywordsSettledSegments = 4

// awaitKeywordsSettled waits until the server's keyword index is in at
// most keywordsSettledSegments segments and prints how long that took.
func awaitKeywordsSettled(c *mcpclient.Client) error {
	start := time.Now()
	var first int
	for {
		var st struct {
			Keywords struct {
				Segments int `json:"segments"`
			} `json:"keywords"`
		}
		if err := c.Call(context.Background(), "dir2mcp.stats", map[string]any{}, &st); err != nil {
			return err
		}
		if first == 0 {
			first = st.Keywords.Segments
		}
		if st.Keywords.Segments <= keywordsSettledSegments {
			if first > keywordsSettledSegments {
				fmt.Printf("  keyword index settled: %d segments -> %d, %s after the restart settled\n", first, st.Keywords.Segments, time.Since(start).Round(100*time.Millisecond))
			}
			return nil
		}
		if time.Since(start) > 3*time.Minute {
			return fmt.Errorf("keyword index still in %d segments 3 minutes after the restart", st.Keywords.Segments)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
