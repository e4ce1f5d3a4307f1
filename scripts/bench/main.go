// Command bench measures dir2mcp end to end on a real corpus (by default the
// Go standard library source, $(go env GOROOT)/src), with the real binaries:
//
//   - a plain walk of the tree (every file lstat'ed), as the floor for a no-op re-index;
//
//   - a full offline index (`dir2mcp index`): wall time and peak RSS;
//
//   - a no-op re-index of the unchanged tree, measured in the same run;
//
//   - search latency over MCP (official go-sdk client → `dir2mcp serve`), p50/p99;
//
//   - grep over MCP for literal patterns, p50/p99, side by side with `grep -rn`
//     on the same files in the same run (and the same matching lines);
//
//   - the chunk count;
//
//   - with -baseline REF: search latency of this build and of git ref REF's,
//     each over its own fresh index of the corpus, in alternating rounds;
//
//   - load while indexing: -load-clients MCP clients search back to back for
//     -load-time while `dir2mcp up` builds a fresh index: errors, p50/p99.
//
//   - with -scale: the scale table instead (scale.go): the Go tree offline
//     and with 1536-d vectors from a fake OpenAI-compatible provider, and
//     with -linux the Linux kernel source, side by side in one run. Its
//     concurrent load is run twice: by go-sdk clients, then by light
//     clients (lightclient.go) that cost the shared machine little, so
//     the second figure is the server's capacity.
//
//   - with -restart: only no-op restarts of `up` over the complete index in
//     -state (restart.go), with -restart-base another build's binaries in
//     alternating rounds.
//
// Usage: go run ./scripts/bench [-corpus DIR] [-bin DIR] [-queries N] [-baseline REF [-compare-only]] [-load-only]
// [-scale [-linux] [-heap-profile DIR]] [-restart -state DIR [-restart-base BINDIR] [-rounds N]]
// (make bench builds the binaries first). The index is written to a temp
// state dir, never into the corpus.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/mcpclient"
)

func main() {
	goroot, _ := exec.Command("go", "env", "GOROOT").Output()
	corpus := flag.String("corpus", filepath.Join(strings.TrimSpace(string(goroot)), "src"), "directory to index")
	binDir := flag.String("bin", "bin", "directory holding the dir2mcp binaries")
	nq := flag.Int("queries", 200, "search queries to time over MCP")
	qfile := flag.String("query-file", "testdata/eval/gostd/symbol.sample.queries.tsv", "TSV of qid<TAB>query (falls back to built-in queries)")
	keep := flag.Bool("keep", false, "keep the state dir")
	stateDir := flag.String("state", "", "existing state dir: only measure search latency over it")
	baseline := flag.String("baseline", "", "git ref whose dir2mcp search latency is measured side by side (fresh indexes, alternating rounds)")
	loadClients := flag.Int("load-clients", 8, "clients searching during the full index of the load section (0 skips it)")
	loadTime := flag.Duration("load-time", 60*time.Second, "how long the clients search during the full index")
	loadOnly := flag.Bool("load-only", false, "run only the load-while-indexing section")
	compareOnly := flag.Bool("compare-only", false, "with -baseline: measure only the side-by-side search latency")
	scaleRun := flag.Bool("scale", false, "measure the scale corpora side by side and print one table (see scale.go)")
	linux := flag.Bool("linux", os.Getenv("BENCH_LINUX") == "1", "with -scale: add the Linux kernel source (linux-source-6.1; many minutes)")
	heapProfile := flag.String("heap-profile", "", "with -scale: write heap profiles of every dir2mcp process into this directory")
	restartRun := flag.Bool("restart", false, "no-op restarts of `up` over -state (a complete index of -corpus): connect split, settled, plain walk, idle RSS")
	restartBase := flag.String("restart-base", "", "with -restart: another build's bin directory, measured in alternating rounds")
	restartBaseState := flag.String("restart-base-state", "", "with -restart-base: its state dir (default -state)")
	rounds := flag.Int("rounds", 5, "with -restart: restarts per build")
	idle := flag.Duration("idle", 3*time.Second, "with -restart: how long after settling idle RSS is read")
	grepToo := flag.Bool("grep", true, "with -state: also time the grep tool")
	again := flag.Bool("again", false, "with -state: time the search queries a second time (caches warm)")
	cpuProfile := flag.String("cpuprofile", "", "write this process's CPU profile (the MCP clients) to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *restartRun {
		o := restartOptions{corpus: *corpus, state: *stateDir, baseState: *restartBaseState, rounds: *rounds, idle: *idle}
		var err error
		if o.state == "" {
			err = fmt.Errorf("-restart needs -state DIR, a complete index of -corpus")
		}
		if err == nil {
			o.bin, err = filepath.Abs(filepath.Join(*binDir, "dir2mcp"))
		}
		if err == nil && *restartBase != "" {
			o.base, err = filepath.Abs(filepath.Join(*restartBase, "dir2mcp"))
		}
		if err == nil {
			err = restarts(o)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *scaleRun {
		bin, err := filepath.Abs(filepath.Join(*binDir, "dir2mcp"))
		if err == nil && *heapProfile != "" {
			err = os.MkdirAll(*heapProfile, 0o755)
		}
		if err == nil {
			err = scale(scaleOptions{bin: bin, qs: queries(*qfile, *nq), clients: *loadClients, loadTime: *loadTime,
				linux: *linux, profileDir: *heapProfile, keep: *keep})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *compareOnly && *baseline != "" {
		if err := compare(*corpus, *binDir, *qfile, *nq, *baseline); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *loadOnly {
		if err := loadOnlyRun(*corpus, *binDir, *qfile, *nq, *loadClients, *loadTime); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *stateDir != "" {
		if err := searchOnly(*corpus, *binDir, *stateDir, *qfile, *nq, *loadClients, *loadTime, *grepToo, *again); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*corpus, *binDir, *qfile, *nq, *keep, *baseline, *loadClients, *loadTime); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type result struct{ name, value, note string }

func run(corpus, binDir, qfile string, nq int, keep bool, baseline string, loadClients int, loadTime time.Duration) error {
	dir2mcp, err := filepath.Abs(filepath.Join(binDir, "dir2mcp"))
	if err != nil {
		return err
	}
	state, err := os.MkdirTemp("", "dir2mcp-bench-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(state)
	}
	var out []result
	fmt.Printf("corpus %s, state dir %s, %d CPUs\n", corpus, state, runtime.NumCPU())

	files, bytes, walk := plainWalk(corpus)
	out = append(out, result{"plain walk (lstat every file)", walk.Round(time.Millisecond).String(), fmt.Sprintf("%d files, %.1f MB", files, float64(bytes)/1e6)})

	full, rss, err := index(dir2mcp, corpus, state)
	if err != nil {
		return err
	}
	out = append(out, result{"full offline index", full.Round(time.Millisecond).String(), "target ≤ 60s"})
	out = append(out, result{"full index peak RSS", fmt.Sprintf("%.0f MB", float64(rss)/1024), ""})

	noop, _, err := index(dir2mcp, corpus, state)
	if err != nil {
		return err
	}
	out = append(out, result{"no-op re-index", noop.Round(time.Millisecond).String(),
		fmt.Sprintf("%.1f× the plain walk; target ≤ 5s", noop.Seconds()/walk.Seconds())})

	c, stop, err := serve(dir2mcp, corpus, state)
	if err != nil {
		return err
	}
	defer stop()
	lat, chunks, err := searchLatency(c, queries(qfile, nq))
	if err != nil {
		return err
	}
	out = append(out, result{"search p50 over MCP", pct(lat, 50).String(), fmt.Sprintf("%d queries, k=10; target ≤ 10ms", len(lat))})
	out = append(out, result{"search p99 over MCP", pct(lat, 99).String(), ""})
	g, err := grepBench(c, corpus, grepRounds)
	if err != nil {
		return err
	}
	out = append(out, g.results()...)
	out = append(out, result{"chunks", fmt.Sprint(chunks), ""})
	if baseline != "" {
		stop() // one server at a time from here
		rows, err := versus(dir2mcp, baseline, corpus, queries(qfile, nq))
		if err != nil {
			return err
		}
		out = append(out, rows...)
	}
	if loadClients > 0 {
		stop()
		rows, err := loadWhileIndexing(dir2mcp, corpus, queries(qfile, nq), loadClients, loadTime)
		if err != nil {
			return err
		}
		out = append(out, rows...)
	}
	table(out)
	return nil
}

// loadOnlyRun runs only the load-while-indexing section.
func loadOnlyRun(corpus, binDir, qfile string, nq, clients int, dur time.Duration) error {
	dir2mcp, err := filepath.Abs(filepath.Join(binDir, "dir2mcp"))
	if err != nil {
		return err
	}
	fmt.Printf("corpus %s, %d CPUs\n", corpus, runtime.NumCPU())
	rows, err := loadWhileIndexing(dir2mcp, corpus, queries(qfile, nq), clients, dur)
	if err != nil {
		return err
	}
	table(rows)
	return nil
}

// table prints the results as a markdown table.
func table(out []result) {
	fmt.Println()
	fmt.Printf("| %-32s | %-12s | %s\n", "measure", "value", "note")
	fmt.Printf("|%s|%s|%s\n", strings.Repeat("-", 34), strings.Repeat("-", 14), strings.Repeat("-", 30))
	for _, r := range out {
		fmt.Printf("| %-32s | %-12s | %s\n", r.name, r.value, r.note)
	}
}

// searchOnly measures search latency over an existing index, then clients
// concurrent clients searching for loadTime (none when clients is 0).
func searchOnly(corpus, binDir, state, qfile string, nq, clients int, loadTime time.Duration, grepToo, again bool) error {
	dir2mcp, err := filepath.Abs(filepath.Join(binDir, "dir2mcp"))
	if err != nil {
		return err
	}
	c, stop, err := serve(dir2mcp, corpus, state)
	if err != nil {
		return err
	}
	defer stop()
	qs := queries(qfile, nq)
	lat, chunks, err := searchLatency(c, qs)
	if err != nil {
		return err
	}
	fmt.Printf("search over MCP: p50 %s p99 %s (%d queries, %d chunks; server CPU %.2f ms/call)\n", pct(lat, 50), pct(lat, 99), len(lat), chunks,
		float64(lastCPU)/1e6)
	if again {
		lat, err := timeSearches(c, qs)
		if err != nil {
			return err
		}
		fmt.Printf("search over MCP, the same queries again: p50 %s p99 %s\n", pct(lat, 50), pct(lat, 99))
	}
	if clients > 0 {
		opts, err := mcpclient.FromStateDir(state)
		if err != nil {
			return err
		}
		sdk, light, err := loadBoth(opts, qs, clients, loadTime)
		if err != nil {
			return err
		}
		for i, l := range []load{sdk, light} {
			fmt.Printf("%d %s for %s: %s search calls/s; errors / p50 / p99: %s; CPU per call, server / clients: %s\n",
				clients, clientKind(i == 1), loadTime, l.rate(), l.latencies(), l.cpu())
		}
	}
	if !grepToo {
		return nil
	}
	g, err := grepBench(c, corpus, grepRounds)
	if err != nil {
		return err
	}
	for _, r := range g.results() {
		fmt.Printf("%s: %s (%s)\n", r.name, r.value, r.note)
	}
	return nil
}

// plainWalk lstat's every file under root, the least work any change
// detection must do.
func plainWalk(root string) (files int, bytes int64, took time.Duration) {
	start := time.Now()
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			files++
			bytes += fi.Size()
		}
		return nil
	})
	return files, bytes, time.Since(start)
}

// index runs `dir2mcp index` and returns its wall time and peak RSS (KiB).
func index(bin, corpus, state string) (time.Duration, int64, error) {
	ix, err := indexRun(bin, corpus, state, nil, "")
	return ix.took, ix.peakKB, err
}

// serve starts `dir2mcp serve` over state and connects an MCP client;
// stop closes both (more calls do nothing). serverCPU is set to read the
// server process's CPU time.
func serve(bin, corpus, state string) (*mcpclient.Client, func(), error) {
	cmd := exec.Command(bin, "serve", "--dir", corpus, "--state-dir", state, "--json", "--listen", "127.0.0.1:0")
	// One client firing queries back to back: the per-client rate limit is not what is measured.
	cmd.Env = append(os.Environ(), "DIR2MCP_SERVER_RATE_LIMIT_RPS=0")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	pid := cmd.Process.Pid
	serverCPU = func() time.Duration { return procCPU(pid) }
	kill := func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"connection"`) {
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	opts, err := mcpclient.FromStateDir(state)
	if err != nil {
		kill()
		return nil, nil, err
	}
	c, err := mcpclient.Dial(context.Background(), opts)
	if err != nil {
		kill()
		return nil, nil, err
	}
	var once sync.Once
	return c, func() { once.Do(func() { c.Close(); kill() }) }, nil
}

// searchLatency waits for the vector files, warms up, times a ping, then
// times search queries over MCP (timeSearches).
func searchLatency(c *mcpclient.Client, qs []string) ([]time.Duration, int64, error) {
	ctx := context.Background()
	var stats struct {
		Indexing struct {
			ChunksTotal int64 `json:"chunks_total"`
		} `json:"indexing"`
		Vectors map[string]struct{ Count int } `json:"vectors"`
	}
	// Wait until both vector files are loaded, so latency includes the vector channel.
	for i := 0; i < 100; i++ {
		if err := c.Call(ctx, "dir2mcp.stats", map[string]any{}, &stats); err != nil {
			return nil, 0, err
		}
		if stats.Vectors["text"].Count > 0 && stats.Vectors["code"].Count > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, q := range qs[:min(10, len(qs))] { // warm-up
		_ = c.Call(ctx, "dir2mcp.search", map[string]any{"query": q}, nil)
	}
	// The protocol's own cost: a ping round trip.
	var ping []time.Duration
	for range 50 {
		start := time.Now()
		if err := c.Session.Ping(ctx, nil); err != nil {
			return nil, 0, err
		}
		ping = append(ping, time.Since(start))
	}
	sortDurations(ping)
	fmt.Printf("  MCP ping round trip: p50 %s\n", pct(ping, 50))
	lat, err := timeSearches(c, qs)
	return lat, stats.Indexing.ChunksTotal, err
}

// timeSearches times one search (k=10) per query, sets lastCPU, and
// returns the latencies sorted.
func timeSearches(c *mcpclient.Client, qs []string) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, len(qs))
	cpu0 := serverCPU()
	for _, q := range qs {
		start := time.Now()
		if err := c.Call(context.Background(), "dir2mcp.search", map[string]any{"query": q, "k": 10}, nil); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(start))
	}
	lastCPU = (serverCPU() - cpu0) / time.Duration(max(len(qs), 1))
	sortDurations(lat)
	return lat, nil
}

// serverCPU reads the CPU time of the server serve started last, and
// lastCPU is the server CPU time per search of the last searchLatency.
var (
	serverCPU = func() time.Duration { return 0 }
	lastCPU   time.Duration
)

// procCPU is the user and system CPU time of process pid so far (0 where
// /proc cannot tell).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces): state is
	// the 3rd field, utime and stime the 14th and 15th, in clock ticks.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc CPU times (100 on Linux).
const clockTicks = 100

func queries(file string, n int) []string {
	var qs []string
	if b, err := os.ReadFile(file); err == nil {
		for _, ln := range strings.Split(string(b), "\n") {
			if _, q, ok := strings.Cut(ln, "\t"); ok && q != "" {
				qs = append(qs, q)
			}
		}
	}
	if len(qs) == 0 {
		qs = []string{"http server shutdown", "parse time layout", "ReadFileHeader", "json decoder stream", "tls handshake"}
	}
	for len(qs) < n {
		qs = append(qs, qs...)
	}
	return qs[:n]
}

func sortDurations(d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	if i > 0 {
		i--
	}
	return sorted[min(i, len(sorted)-1)].Round(10 * time.Microsecond)
}
