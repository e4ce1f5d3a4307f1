package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// buildBaseline builds the dir2mcp binary of git ref ref into a temp
// directory (through a detached worktree) and returns its path and a
// cleanup function.
func buildBaseline(ref string) (string, func(), error) {
	tmp, err := os.MkdirTemp("", "dir2mcp-baseline-")
	if err != nil {
		return "", nil, err
	}
	wt := filepath.Join(tmp, "src")
	cleanup := func() {
		exec.Command("git", "worktree", "remove", "--force", wt).Run()
		os.RemoveAll(tmp)
	}
	if out, err := exec.Command("git", "worktree", "add", "--detach", wt, ref).CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("git worktree add %s: %v: %s", ref, err, out)
	}
	bin := filepath.Join(tmp, "dir2mcp")
	cmd := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", bin, "./cmd/dir2mcp")
	cmd.Dir, cmd.Stderr = wt, os.Stderr
	if err := cmd.Run(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("build %s: %v", ref, err)
	}
	return bin, cleanup, nil
}

// sideBySide indexes the corpus with the baseline binary too and times
// the same search queries against both servers in alternating rounds, so
// machine load falls on both alike. It returns result rows.
func sideBySide(current, baseline, corpus string, qs []string, rounds int) ([]result, error) {
	state, err := os.MkdirTemp("", "dir2mcp-bench-baseline-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(state)
	fmt.Println("  indexing with the baseline binary")
	if _, _, err := index(baseline, corpus, state); err != nil {
		return nil, err
	}
	type side struct {
		name, bin, state string
		lat              []time.Duration
		cpu              time.Duration // server CPU time per search, summed over rounds
	}
	cur := &side{name: "current", bin: current}
	base := &side{name: "baseline", bin: baseline, state: state}
	curState, err := os.MkdirTemp("", "dir2mcp-bench-current-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(curState)
	cur.state = curState
	if _, _, err := index(current, corpus, curState); err != nil {
		return nil, err
	}
	for r := 0; r < rounds; r++ {
		order := []*side{cur, base}
		if r%2 == 1 {
			order = []*side{base, cur}
		}
		for _, s := range order {
			c, stop, err := serve(s.bin, corpus, s.state)
			if err != nil {
				return nil, err
			}
			lat, _, err := searchLatency(c, qs)
			stop()
			if err != nil {
				return nil, fmt.Errorf("%s: %v", s.name, err)
			}
			s.lat = append(s.lat, lat...)
			s.cpu += lastCPU
		}
	}
	var out []result
	for _, s := range []*side{cur, base} {
		sortDurations(s.lat)
	}
	p50c, p50b := pct(cur.lat, 50), pct(base.lat, 50)
	out = append(out,
		result{"search p50, current (side by side)", p50c.String(), fmt.Sprintf("%d queries in %d alternating rounds", len(cur.lat), rounds)},
		result{"search p50, baseline", p50b.String(), fmt.Sprintf("current/baseline = %.2f", float64(p50c)/float64(p50b))},
		result{"search p99, current / baseline", pct(cur.lat, 99).String() + " / " + pct(base.lat, 99).String(), ""},
		result{"server CPU per search, cur / base", (cur.cpu / time.Duration(rounds)).Round(10*time.Microsecond).String() + " / " + (base.cpu / time.Duration(rounds)).Round(10*time.Microsecond).String(),
			fmt.Sprintf("current/baseline = %.2f (what latency follows on a loaded machine)", float64(cur.cpu)/float64(base.cpu))})
	return out, nil
}

// compare measures only the side-by-side search latency of this build and
// of git ref ref.
func compare(corpus, binDir, qfile string, nq int, ref string) error {
	dir2mcp, err := filepath.Abs(filepath.Join(binDir, "dir2mcp"))
	if err != nil {
		return err
	}
	rows, err := versus(dir2mcp, ref, corpus, queries(qfile, nq))
	if err != nil {
		return err
	}
	for _, r := range rows {
		fmt.Printf("| %-34s | %-12s | %s\n", r.name, r.value, r.note)
	}
	return nil
}

// versus builds git ref ref and measures search latency side by side
// with the binary current (see sideBySide).
func versus(current, ref, corpus string, qs []string) ([]result, error) {
	bin, cleanup, err := buildBaseline(ref)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	return sideBySide(current, bin, corpus, qs, 4)
}
