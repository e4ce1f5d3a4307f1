package main

import (
	"fmt"
	"path/filepath"
	"time"
)

// restartOptions configures the -restart section: no-op restarts of
// `dir2mcp up` over an existing, complete index, this build and another
// side by side.
type restartOptions struct {
	corpus, state string
	bin           string // this build's dir2mcp
	base          string // the other build's dir2mcp ("" for none)
	baseState     string // its state dir (default: state)
	rounds        int
	idle          time.Duration // how long after settling idle RSS is read
}

// restartRun is one measured restart.
type restartRun struct {
	walk             time.Duration
	split            connectSplit
	connect, settled time.Duration
	settledCPU       time.Duration
	idleKB           int64
}

// restarts starts `up` on the unchanged tree rounds times for each build,
// alternating which goes first, a plain lstat walk of the tree just before
// every start (warm cache), and prints each run and the medians.
func restarts(o restartOptions) error {
	builds := []struct{ name, bin, state string }{{"this build", o.bin, o.state}}
	if o.base != "" {
		st := o.baseState
		if st == "" {
			st = o.state
		}
		builds = append(builds, struct{ name, bin, state string }{"base " + filepath.Dir(o.base), o.base, st})
	}
	runs := make([][]restartRun, len(builds))
	for round := 0; round < o.rounds; round++ {
		for j := range builds {
			i := (j + round) % len(builds) // alternate which build goes first
			b := builds[i]
			var r restartRun
			_, _, r.walk = plainWalk(o.corpus)
			up, err := startUp(b.bin, o.corpus, b.state, nil, "")
			if err != nil {
				return fmt.Errorf("%s: %v", b.name, err)
			}
			r.split, r.connect, r.settled, r.settledCPU = up.split, up.connect, up.settled, up.settledCPU
			time.Sleep(o.idle)
			r.idleKB = procStatusKB(up.pid, "VmRSS")
			up.stop()
			runs[i] = append(runs[i], r)
			fmt.Printf("round %d %-12s connect %-8s (event / initialized / ping %s) settled %-8s (CPU %s) walk %-7s settled÷walk %.1f× idle RSS %s load %s\n",
				round+1, b.name, r.connect.Round(time.Millisecond), r.split, r.settled.Round(time.Millisecond), r.settledCPU,
				r.walk.Round(time.Millisecond), r.settled.Seconds()/r.walk.Seconds(), mb(r.idleKB), loadAvg())
		}
	}
	fmt.Printf("\nmedians of %d rounds, %s\n\n| | %s", o.rounds, o.corpus, builds[0].name)
	for _, b := range builds[1:] {
		fmt.Printf(" | %s", b.name)
	}
	fmt.Print(" |\n|---|")
	for range builds {
		fmt.Print("---|")
	}
	fmt.Println()
	rows := []struct {
		name string
		f    func(restartRun) float64 // seconds, or a ratio
		unit string
	}{
		{"connection event", func(r restartRun) float64 { return r.split.event.Seconds() }, "s"},
		{"initialized", func(r restartRun) float64 { return r.split.initialized.Seconds() }, "s"},
		{"connect (ping answered)", func(r restartRun) float64 { return r.connect.Seconds() }, "s"},
		{"settled (index_complete)", func(r restartRun) float64 { return r.settled.Seconds() }, "s"},
		{"  server CPU (user+sys) until settled", func(r restartRun) float64 { return r.settledCPU.Seconds() }, "s"},
		{"plain lstat walk", func(r restartRun) float64 { return r.walk.Seconds() }, "s"},
		{"settled ÷ walk", func(r restartRun) float64 { return r.settled.Seconds() / r.walk.Seconds() }, "×"},
		{"idle RSS", func(r restartRun) float64 { return float64(r.idleKB) / 1024 }, "MB"},
	}
	for _, row := range rows {
		fmt.Printf("| %s |", row.name)
		for i := range builds {
			v := make([]float64, len(runs[i]))
			for k, r := range runs[i] {
				v[k] = row.f(r)
			}
			med, lo, hi := medianRange(v)
			switch row.unit {
			case "s":
				fmt.Printf(" %s (%s–%s) |", secs(med), secs(lo), secs(hi))
			case "×":
				fmt.Printf(" %.1f× (%.1f–%.1f) |", med, lo, hi)
			default:
				fmt.Printf(" %.0f MB (%.0f–%.0f) |", med, lo, hi)
			}
		}
		fmt.Println()
	}
	return nil
}

// secs formats seconds as milliseconds below 1 s.
func secs(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.0f ms", s*1000)
	}
	return fmt.Sprintf("%.2f s", s)
}
