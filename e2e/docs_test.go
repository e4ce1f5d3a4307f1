package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// Checked doc examples. A fenced block right after a line
//
//	<!-- checked [corpus=PATH] [cwd=PATH] -->
//
// in README.md or docs/*.md holds commands ("$ cmd", continued by a
// trailing "\") each followed by its expected output (stdout and stderr
// together). The test runs them with bash, in document order, against the
// built binaries, and compares the output. Paths under /tmp/d2m stand for
// one temp dir per document; corpus=PATH makes PATH a fresh copy of
// testdata/corpus; cwd=PATH is where the commands run (default: the corpus,
// else the temp dir). "$ cat FILE" of a file that does not exist yet writes
// the shown content to it (a config shown in the docs). A line "…" in the
// output stands for any number of lines. Volatile parts (binary paths,
// ports, durations, timestamps, job ids, platform, Go version) are
// normalized on both sides.

type docBlock struct {
	file, corpus, cwd string
	line              int
	steps             []docStep
}

type docStep struct {
	cmd  string
	want []string
}

var checkedMarker = regexp.MustCompile(`^<!-- checked((?:\s+\w+=\S+)*)\s*-->$`)

func parseCheckedBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	var blocks []docBlock
	for i := 0; i < len(lines); i++ {
		m := checkedMarker.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			continue
		}
		b := docBlock{file: path, line: i + 1}
		for _, kv := range strings.Fields(m[1]) {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "corpus":
				b.corpus = v
			case "cwd":
				b.cwd = v
			default:
				t.Fatalf("%s:%d: unknown option %q", path, i+1, k)
			}
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Fatalf("%s:%d: a checked marker must be followed by a fenced block", path, i+1)
		}
		for i += 2; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			l := lines[i]
			if cmd, ok := strings.CutPrefix(l, "$ "); ok {
				for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
					i++
					cmd = strings.TrimSuffix(cmd, `\`) + "\n" + lines[i]
				}
				b.steps = append(b.steps, docStep{cmd: cmd})
				continue
			}
			if len(b.steps) == 0 {
				t.Fatalf("%s:%d: output before the first command", path, i+1)
			}
			s := &b.steps[len(b.steps)-1]
			s.want = append(s.want, l)
		}
		blocks = append(blocks, b)
	}
	return blocks
}

var docNormalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[^\s"'=]*/bin/(dir2mcp[\w-]*)`), "BIN/$1"},
	{regexp.MustCompile(`(127\.0\.0\.1|localhost):\d+`), "$1:PORT"},
	{regexp.MustCompile(`\(\d+\.\d+s\)`), "(Ts)"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "TIME"},
	{regexp.MustCompile(`\b(linux|darwin|windows|freebsd)/(amd64|arm64|386|arm)\b`), "OS/ARCH"},
	{regexp.MustCompile(`\bgo1\.\d+(\.\d+)?\b`), "goVERSION"},
	{regexp.MustCompile(`job_\d{8}T\d{6}_[0-9a-f]+`), "JOB"},
	{regexp.MustCompile(`"duration_ms":\d+`), `"duration_ms":N`},
}

func normalizeDoc(s string) string {
	for _, n := range docNormalizers {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return strings.TrimRight(s, " \t")
}

// matchLines compares output lines with expected ones, where "…" matches
// any run of lines.
func matchLines(got, want []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "…" {
		for i := 0; i <= len(got); i++ {
			if matchLines(got[i:], want[1:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && normalizeDoc(got[0]) == normalizeDoc(want[0]) && matchLines(got[1:], want[1:])
}

func TestCheckedDocExamples(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed: the pipeline examples use it")
	}
	files, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	files = append([]string{filepath.Join("..", "README.md")}, files...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DIR2MCP_") && !strings.Contains(kv, "_API_KEY=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	var ran []string
	for _, file := range files {
		blocks := parseCheckedBlocks(t, file)
		if len(blocks) == 0 {
			continue
		}
		tmp := t.TempDir()
		mapPath := func(s string) string { return strings.ReplaceAll(s, "/tmp/d2m", tmp) }
		unmap := func(s string) string {
			return strings.ReplaceAll(strings.ReplaceAll(s, tmp, "/tmp/d2m"), binDir, "/usr/local/bin")
		}
		for _, b := range blocks {
			where := fmt.Sprintf("%s:%d", strings.TrimPrefix(b.file, "../"), b.line)
			cwd := tmp
			if b.corpus != "" {
				dst := mapPath(b.corpus)
				if _, err := os.Stat(dst); os.IsNotExist(err) {
					src := copyCorpus(t, "corpus")
					if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(src, dst); err != nil {
						t.Fatal(err)
					}
				}
				cwd = dst
			}
			if b.cwd != "" {
				cwd = mapPath(b.cwd)
			}
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, s := range b.steps {
				ran = append(ran, s.cmd)
				if f, ok := strings.CutPrefix(s.cmd, "cat "); ok && !strings.ContainsAny(f, " |;&<>") {
					if _, err := os.Stat(filepath.Join(cwd, f)); os.IsNotExist(err) {
						writeFile(t, filepath.Join(cwd, f), strings.Join(s.want, "\n")+"\n")
					}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				cmd := exec.CommandContext(ctx, "bash", "-c", mapPath(s.cmd))
				cmd.Dir, cmd.Env = cwd, env
				out, _ := cmd.CombinedOutput()
				cancel()
				got := strings.Split(strings.TrimSuffix(unmap(string(out)), "\n"), "\n")
				if len(out) == 0 {
					got = nil
				}
				if !matchLines(got, s.want) {
					t.Errorf("%s: $ %s\n--- the docs show:\n%s\n--- the command printed:\n%s", where, s.cmd,
						strings.Join(s.want, "\n"), strings.Join(got, "\n"))
				}
			}
		}
	}
	all := strings.Join(ran, "\n")
	for _, must := range []string{"dir2mcp version", "dir2mcp config print", "dir2mcp-scan 2>/dev/null | jq", "dir2mcp-extract", "dir2mcp config client"} {
		if !strings.Contains(all, must) {
			t.Errorf("no checked doc example runs %q", must)
		}
	}
}

// TestReadOnlyAsDocumented: README, docs/configuration.md and docs/tools.md
// say `--read-only` hides transcribe, annotate and transcribe_and_ask;
// `up --read-only` lists exactly the other tools.
func TestReadOnlyAsDocumented(t *testing.T) {
	hidden := []string{"transcribe", "annotate", "transcribe_and_ask"}
	for _, f := range []string{"README.md", "docs/configuration.md", "docs/tools.md"} {
		b, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(b)), " ")
		i := strings.Index(text, "--read-only` ")
		if i < 0 {
			i = strings.Index(text, "--read-only`")
		}
		if i < 0 {
			t.Errorf("%s does not describe --read-only", f)
			continue
		}
		near := text[i:min(len(text), i+200)]
		if !strings.Contains(near, "hide") || strings.Contains(near, "no effect") || strings.Contains(near, "changes nothing") {
			t.Errorf("%s: --read-only described as %q", f, near)
		}
		for _, h := range hidden {
			if !strings.Contains(near, "`"+h+"`") {
				t.Errorf("%s: the --read-only text does not name %s: %q", f, h, near)
			}
		}
	}
	list := func(extra ...string) map[string]bool {
		p := start(t, "dir2mcp", nil, upArgs(copyCorpus(t, "corpus"), extra...)...)
		defer p.stop()
		c := newMCP(t, p.connect())
		c.initialize()
		var r struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		if err := json.Unmarshal(c.call("tools/list", map[string]any{}), &r); err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, tl := range r.Tools {
			names[strings.TrimPrefix(tl.Name, "dir2mcp.")] = true
		}
		return names
	}
	all, ro := list(), list("--read-only")
	for name := range all {
		isHidden := slices.Contains(hidden, name)
		if ro[name] == isHidden {
			t.Errorf("tool %s: listed with --read-only = %v, documented hidden = %v", name, ro[name], isHidden)
		}
	}
	for _, h := range hidden {
		if !all[h] {
			t.Errorf("tool %s is not served without --read-only: %v", h, all)
		}
	}
}
