package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/provider/mistral/mistraltest"
)

// ttyProc runs a command on a pseudo-terminal (util-linux script), so the
// CLI sees a TTY on stdin and stdout as a user's shell would give it.
type ttyProc struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *syncBuffer
	// done closes when the process has exited; err is then its Wait result.
	done chan struct{}
	err  error
}

// wait returns the exit error of the process once it has exited.
func (p *ttyProc) wait() error {
	<-p.done
	return p.err
}

func startTTY(t *testing.T, env []string, args ...string) *ttyProc {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("util-linux script not installed: cannot run the CLI on a pseudo-terminal")
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	p := &ttyProc{t: t, out: &syncBuffer{}}
	p.cmd = exec.Command("script", "-qefc", bin("dir2mcp")+" "+strings.Join(quoted, " "), "/dev/null")
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.in = in
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	p.done = done
	go func() { p.err = p.cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		// script puts the program in a session of its own, so killing
		// script's process group leaves it running: type Ctrl-C on the
		// terminal first (the program's own SIGINT), then kill what remains.
		io.WriteString(p.in, "\x03")
		select {
		case <-done:
			return
		case <-time.After(10 * time.Second):
		}
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	})
	return p
}

// answer waits for prompt on the terminal, then types line. The short
// pause lets the program turn echo off for a masked prompt first.
func (p *ttyProc) answer(prompt, line string) {
	p.t.Helper()
	p.waitFor(prompt, 30*time.Second)
	time.Sleep(300 * time.Millisecond)
	io.WriteString(p.in, line+"\r")
}

func (p *ttyProc) waitFor(s string, timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(p.out.String(), s) {
		if time.Now().After(deadline) {
			p.t.Fatalf("no %q on the terminal; got:\n%s", s, p.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// `config init` on a terminal is a wizard with masked key input; the key
// goes to a 0600 secrets file, never into the config or onto the screen.
func TestConfigInitWizardOnTTY(t *testing.T) {
	dir := t.TempDir()
	const key = "tty-wizard-key-0123456789abcdef"
	p := startTTY(t, nil, "config", "init", "--dir", dir)
	p.answer("Mistral API key", key)
	p.answer("Speech-to-text provider", "")
	p.answer("Embeddings", "")
	p.answer("PDFs", "auto")
	p.answer("Keep the API keys in", "file")
	if err := p.wait(); err != nil {
		t.Fatalf("wizard: %v\n%s", err, p.out.String())
	}
	if strings.Contains(p.out.String(), key) {
		t.Errorf("the key was echoed:\n%s", p.out.String())
	}
	y, err := os.ReadFile(filepath.Join(dir, ".dir2mcp.yaml"))
	if err != nil || strings.Contains(string(y), key) || !strings.Contains(string(y), "mode: auto") {
		t.Errorf("config: %v\n%s", err, y)
	}
	sec := filepath.Join(dir, ".dir2mcp", "secret.env")
	b, err := os.ReadFile(sec)
	fi, _ := os.Stat(sec)
	if err != nil || !strings.Contains(string(b), "MISTRAL_API_KEY="+key) || fi.Mode().Perm() != 0o600 {
		t.Errorf("secrets file: %v %v", err, fi)
	}
}

// `up` on a terminal asks for a missing key (masked) instead of failing,
// and uses it for the session only.
func TestUpPromptsForMissingKeyOnTTY(t *testing.T) {
	fake := mistraltest.New()
	defer fake.Close()
	const key = "tty-session-key-0123456789abcdef"
	fake.Key = key
	dir := copyCorpus(t, "corpus")
	p := startTTY(t, []string{"MISTRAL_API_KEY=", "DIR2MCP_EMBED_PROVIDER=mistral", "DIR2MCP_MISTRAL_BASE_URL=" + fake.URL},
		"up", "--dir", dir, "--json", "--listen", "127.0.0.1:0")
	p.answer("MISTRAL_API_KEY (input hidden", key)
	p.waitFor(`"event":"index_complete"`, 60*time.Second)
	if strings.Contains(p.out.String(), key) {
		t.Errorf("the key was echoed:\n%s", p.out.String())
	}
	if fake.Calls(mistraltest.Embeddings) == 0 {
		t.Error("the session key was not used")
	}
	snap, err := os.ReadFile(filepath.Join(dir, ".dir2mcp", ".dir2mcp.yaml.snapshot"))
	if err != nil || strings.Contains(string(snap), key) || !strings.Contains(string(snap), "session") {
		t.Error("the session key reached the config snapshot")
	}
}
