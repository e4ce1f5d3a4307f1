package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestProgressBarOnTTY runs `index` on a 60-column pseudo-terminal over a
// couple of thousand files (indexed in ~1.5 s here, drawing a frame every
// 150 ms) and three broken archives: every bar line fits in 59
// columns, each phase's percentage never goes back, each phase ends on its
// own line at 100%, the warnings come after the last bar (summarized, not
// interleaved), and the summary starts its own line.
func TestProgressBarOnTTY(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("util-linux script not installed: cannot run the CLI on a pseudo-terminal")
	}
	dir := t.TempDir()
	words := strings.Fields("ledger balance night alpha beta gamma delta omega river stone")
	for i := range 2000 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Note %d\n\n", i)
		for j := range 300 {
			fmt.Fprintf(&b, "%s%d ", words[(i*7+j)%len(words)], (i*31+j)%997)
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("d%d", i%40), fmt.Sprintf("n%d.md", i)), b.String())
	}
	for i := range 3 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("broken%d.zip", i)), "PK\x03\x04 not really a zip")
	}
	cmd := exec.Command("script", "-qefc", "stty cols 60 rows 20; exec "+bin("dir2mcp")+" index --dir '"+dir+"'", "/dev/null")
	cmd.Env = append(os.Environ(), "DIR2MCP_EMBED_PROVIDER=local")
	raw, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("index on a terminal: %v\n%q", err, raw)
	}
	out := string(raw)
	clear := regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)
	frame := regexp.MustCompile(`^(scan|extract|embed) `)
	pct := regexp.MustCompile(`(\d+)%`)
	last := map[string]int{}
	frames, lastFrameAt := 0, 0
	pos := 0
	for _, seg := range regexp.MustCompile(`[\r\n]`).Split(out, -1) {
		pos += len(seg) + 1
		text := clear.ReplaceAllString(seg, "")
		m := frame.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		frames++
		lastFrameAt = pos
		if len(text) > 59 {
			t.Errorf("bar line of %d columns on a 60-column terminal: %q", len(text), text)
		}
		if p := pct.FindStringSubmatch(text); p != nil {
			n, _ := strconv.Atoi(p[1])
			if n < last[m[1]] {
				t.Errorf("%s went back from %d%% to %d%%: %q", m[1], last[m[1]], n, text)
			}
			last[m[1]] = n
		}
	}
	t.Logf("%d bar frames", frames)
	if frames < 5 {
		t.Fatalf("only %d bar frames drawn:\n%q", frames, out)
	}
	for _, phase := range []string{"extract", "embed"} {
		if !regexp.MustCompile(`(?m)` + phase + ` +\[#+\] 100%[^\r\n]*\r?\n`).MatchString(clear.ReplaceAllString(out, "")) {
			t.Errorf("no final %s line at 100%% on its own line:\n%q", phase, out)
		}
	}
	warn := strings.Index(out, "WARN")
	if warn < 0 || warn < lastFrameAt || !strings.Contains(out, "3 warnings:") || strings.Count(out, "WARN: broken") != 3 {
		t.Errorf("warnings not summarized after the bar (first WARN at %d, last bar at %d):\n%q", warn, lastFrameAt, out)
	}
	i := strings.Index(out, "Indexing complete: ")
	if i <= 0 || out[i-1] != '\n' {
		t.Errorf("summary does not start its own line:\n%q", out)
	}
}
