package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/mcpclient"
)

// loadWhileIndexing starts `dir2mcp up` on corpus with an empty state dir
// (a full index begins at once) and has clients MCP sessions, each its own
// official go-sdk client, search back to back for dur while the index is
// built. Every failed call (transport error, JSON-RPC error or a tool
// error) counts as an error; the target is none.
func loadWhileIndexing(bin, corpus string, qs []string, clients int, dur time.Duration) ([]result, error) {
	state, err := os.MkdirTemp("", "dir2mcp-bench-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(state)
	cmd := exec.Command(bin, "up", "--dir", corpus, "--state-dir", state, "--json", "--non-interactive", "--listen", "127.0.0.1:0")
	// Eight clients on one address: the per-client rate limit is not what is measured.
	cmd.Env = append(os.Environ(), "DIR2MCP_SERVER_RATE_LIMIT_RPS=0")
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer // the server's log: shown only when a call failed
	cmd.Stderr = &stderr
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	events := make(chan string, 1)
	indexed := make(chan time.Duration, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			ln := sc.Text()
			if strings.Contains(ln, `"event":"connection"`) {
				events <- ln
			}
			if strings.Contains(ln, `"event":"index_complete"`) {
				indexed <- time.Since(begin)
			}
		}
	}()
	select {
	case <-events:
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("load: up printed no connection event within 60s")
	}
	opts, err := mcpclient.FromStateDir(state)
	if err != nil {
		return nil, err
	}
	h, err := hammer(opts, qs, clients, dur, false)
	if err != nil {
		return nil, err
	}
	lat, errs, first := h.lat, h.errs, h.first
	during := "index still running when the load ended"
	select {
	case d := <-indexed:
		during = fmt.Sprintf("index complete after %s", d.Round(time.Second))
	default:
	}
	note := fmt.Sprintf("%d clients × %s, %s; target 0", clients, dur, during)
	if first != "" {
		note += "; first: " + first
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		fmt.Fprintf(os.Stderr, "dir2mcp up log:\n%s\n", tail(stderr.String(), 40))
	}
	return []result{
		{"searches during a full index", fmt.Sprint(len(lat)), fmt.Sprintf("%.0f/s", float64(len(lat))/dur.Seconds())},
		{"errors during a full index", fmt.Sprint(errs), note},
		{"search p50 during a full index", pct(lat, 50).String(), ""},
		{"search p99 during a full index", pct(lat, 99).String(), ""},
	}, nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// load is what clients searching back to back saw.
type load struct {
	dur   time.Duration   // how long they searched; 0: not run
	lat   []time.Duration // every call's latency, sorted
	errs  int             // failed calls
	first string          // the first failure
	// clientCPU is the CPU time this process (all the clients) spent
	// during the run: on a shared machine it is taken from the server.
	// serverCPU is the server's (serverCPU), 0 if unknown.
	clientCPU, serverCPU time.Duration
}

// hammer has clients MCP sessions, each its own official go-sdk client
// (light: a load generator's client, lightSearcher), search back to back
// for dur. Every failed call (transport error, JSON-RPC error or a tool
// error) counts as an error.
func hammer(opts mcpclient.Options, qs []string, clients int, dur time.Duration, light bool) (load, error) {
	ctx := context.Background()
	var (
		mu     sync.Mutex
		out    load
		wg     sync.WaitGroup
		stopAt = time.Now().Add(dur)
		cpu0   = procCPU(os.Getpid())
		srv0   = serverCPU()
	)
	out.dur = dur
	for i := range clients {
		c, err := dialSearcher(ctx, opts, light)
		if err != nil {
			return out, fmt.Errorf("client %d: %v", i, err)
		}
		defer c.close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for n := i; time.Now().Before(stopAt); n++ {
				start := time.Now()
				err := c.search(ctx, qs[n%len(qs)])
				mine = append(mine, time.Since(start))
				if err != nil {
					mu.Lock()
					if out.errs++; out.first == "" {
						out.first = err.Error()
					}
					mu.Unlock()
				}
			}
			mu.Lock()
			out.lat = append(out.lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	out.clientCPU, out.serverCPU = procCPU(os.Getpid())-cpu0, serverCPU()-srv0
	sortDurations(out.lat)
	return out, nil
}

// rate is the calls per second, or "–" when not run.
func (l load) rate() string {
	if l.dur == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", float64(len(l.lat))/l.dur.Seconds())
}

// latencies is the errors (with the first) and the latency percentiles.
func (l load) latencies() string {
	if l.dur == 0 {
		return "–"
	}
	s := fmt.Sprintf("%d / %s / %s", l.errs, pct(l.lat, 50), pct(l.lat, 99))
	if l.first != "" {
		s += " (first: " + l.first + ")"
	}
	return s
}

// cpu is the server's and the clients' CPU time per call.
func (l load) cpu() string {
	if l.dur == 0 || len(l.lat) == 0 {
		return "–"
	}
	per := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(len(l.lat)) }
	return fmt.Sprintf("%.2f ms / %.2f ms", per(l.serverCPU), per(l.clientCPU))
}

// loadBoth has clients go-sdk clients, then clients light ones, search
// for dur each.
func loadBoth(opts mcpclient.Options, qs []string, clients int, dur time.Duration) (sdk, light load, err error) {
	if sdk, err = hammer(opts, qs, clients, dur, false); err != nil {
		return
	}
	light, err = hammer(opts, qs, clients, dur, true)
	return
}
