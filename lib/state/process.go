package state

import (
	"errors"
	"os"
	"syscall"
)

// ProcessAlive reports whether pid names a running process (so a stale
// running=true left in corpus.json by a crashed indexer is not believed).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
