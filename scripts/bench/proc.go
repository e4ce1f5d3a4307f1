package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// procStatusKB reads a "Vm…:  N kB" field of /proc/PID/status (0 when
// the process is gone).
func procStatusKB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, ln := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(ln, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// rssWatch samples a process's VmHWM and VmRSS until stop: the peak is
// the kernel's high-water mark of the real binary, and the samples show
// whether it grows with the run.
type rssWatch struct {
	mu      sync.Mutex
	hwm     int64   // KiB
	samples []int64 // VmRSS KiB, one per second
	done    chan struct{}
	wg      sync.WaitGroup
}

func watchRSS(pid int) *rssWatch {
	w := &rssWatch{done: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for n := 0; ; n++ {
			hwm := procStatusKB(pid, "VmHWM")
			w.mu.Lock()
			w.hwm = max(w.hwm, hwm)
			if n%10 == 0 {
				w.samples = append(w.samples, procStatusKB(pid, "VmRSS"))
			}
			w.mu.Unlock()
			select {
			case <-w.done:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// stop ends the sampling and returns the peak (KiB).
func (w *rssWatch) stop() int64 {
	close(w.done)
	w.wg.Wait()
	return w.hwm
}

// growth describes VmRSS at a quarter, half and three quarters of the run.
func (w *rssWatch) growth() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.samples)
	if n < 4 {
		return ""
	}
	return fmt.Sprintf("RSS %s / %s / %s at ¼ ½ ¾ of the run", mb(w.samples[n/4]), mb(w.samples[n/2]), mb(w.samples[3*n/4]))
}

// mb formats KiB as megabytes.
func mb(kib int64) string { return fmt.Sprintf("%.0f MB", float64(kib)/1024) }
