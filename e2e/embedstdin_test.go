package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// chunkRecords indexes a corpus copy with scan | extract and returns the
// chunk records extract printed, one per line.
func chunkRecords(t *testing.T) (string, []string) {
	t.Helper()
	dir := copyCorpus(t, "corpus")
	out := runPipe(t,
		exec.Command(bin("dir2mcp-scan"), "--dir", dir),
		exec.Command(bin("dir2mcp-extract"), "--dir", dir))
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatal("extract printed no chunk records")
	}
	return dir, lines
}

// startEmbed runs dir2mcp-embed --input stdin with stdin a pipe the test
// writes, returning the process, the pipe, its stderr and a channel that
// receives once it exits.
func startEmbed(t *testing.T, dir string) (*os.Process, io.WriteCloser, *syncBuffer, chan error) {
	t.Helper()
	cmd := exec.Command(bin("dir2mcp-embed"), "--dir", dir, "--input", "stdin")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		<-done
	})
	return cmd.Process, stdin, stderr, done
}

// exited waits for the embed process to end; a process still running after
// the watchdog is hung (the watchdog only catches a hang, it measures
// nothing).
func exited(t *testing.T, done chan error, stderr *syncBuffer, what string) error {
	t.Helper()
	select {
	case err := <-done:
		done <- err // for the cleanup
		return err
	case <-time.After(60 * time.Second):
		t.Fatalf("dir2mcp-embed still running after %s (hung)\nstderr: %s", what, stderr.String())
	}
	return nil
}

// A run that stops early (here: a record the embedder refuses) ends the
// process with its error even while stdin keeps producing records: the
// reader must not block on a full channel with nobody receiving.
func TestEmbedStdinEndsWhenTheRunStopsEarly(t *testing.T) {
	dir, lines := chunkRecords(t)
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	rec["index_kind"] = "bogus"
	bad, _ := json.Marshal(rec)
	_, stdin, stderr, done := startEmbed(t, dir)
	go func() { // an upstream that never ends
		block := bytes.Repeat(append(bad, '\n'), 256)
		for {
			if _, err := stdin.Write(block); err != nil {
				return
			}
		}
	}()
	err := exited(t, done, stderr, "refusing a record")
	if err == nil || !strings.Contains(stderr.String(), `unknown index_kind "bogus"`) {
		t.Fatalf("want the refusal as the exit error; err=%v stderr=%s", err, stderr.String())
	}
}

// Ctrl-C while the upstream stage is quiet (stdin open, nothing arriving)
// ends the process.
func TestEmbedStdinEndsOnInterrupt(t *testing.T) {
	dir, lines := chunkRecords(t)
	p, stdin, stderr, done := startEmbed(t, dir)
	if _, err := io.WriteString(stdin, lines[0]+"\n"); err != nil {
		t.Fatal(err)
	}
	// Let it read the record and start embedding before the interrupt (an
	// earlier one would only take the default signal path).
	time.Sleep(time.Second)
	select {
	case err := <-done:
		t.Fatalf("dir2mcp-embed ended before the interrupt: %v\n%s", err, stderr.String())
	default:
	}
	if err := p.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	exited(t, done, stderr, "an interrupt")
}
