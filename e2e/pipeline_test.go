package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

var pipelineQueries = []string{
	"quarterly ledger entries against the bank statement",
	"haversine great circle distance",
	"when must the dome be closed",
	"visitor centre opening hours and tickets",
	"ErrUnbalanced",
	"telescope aperture and mount",
}

// TestPipelineMatchesUp runs the stage binaries one by one
// (scan | extract, then embed, then serve) and checks that search answers
// exactly as `up` does on an identical copy of the corpus.
func TestPipelineMatchesUp(t *testing.T) {
	a := copyCorpus(t, "corpus")
	docs := runPipe(t, exec.Command(bin("dir2mcp-scan"), "--dir", a))
	checkRecords(t, docs, record.TypeDocument)
	chunks := runPipe(t,
		exec.Command(bin("dir2mcp-scan"), "--dir", a),
		exec.Command(bin("dir2mcp-extract"), "--dir", a))
	n := checkRecords(t, chunks, record.TypeChunk)
	if n == 0 {
		t.Fatal("extract printed no chunk records")
	}
	embed := exec.Command(bin("dir2mcp-embed"), "--dir", a, "--json")
	out, err := embed.CombinedOutput()
	if err != nil {
		t.Fatalf("dir2mcp-embed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"embedded_ok":`+fmt.Sprint(n)) {
		t.Errorf("embed summary does not report %d embedded chunks:\n%s", n, out)
	}
	serve := start(t, "dir2mcp-serve", nil, "--dir", a, "--json", "--listen", "127.0.0.1:0")
	viaPipeline := newMCP(t, serve.connect())
	viaPipeline.initialize()

	b := copyCorpus(t, "corpus")
	up := start(t, "dir2mcp", nil, upArgs(b)...)
	viaUp := newMCP(t, up.connect())
	viaUp.initialize()
	up.wait("index_complete", 60*time.Second)

	for _, q := range pipelineQueries {
		got, want := summarize(viaPipeline.search(q, nil)), summarize(viaUp.search(q, nil))
		if len(want) == 0 {
			t.Errorf("%q: up found nothing", q)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\npipeline %v\nup       %v", q, got, want)
		}
	}
}

// summarize reduces hits to what a user compares: file, span and score.
func summarize(r searchOut) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, fmt.Sprintf("%s:%d-%d@%.4f", h.RelPath, h.Span.StartLine, h.Span.EndLine, h.Score))
	}
	return out
}

// checkRecords asserts every line is a versioned record of the given type
// and returns how many there are.
func checkRecords(t *testing.T, ndjson []byte, typ string) int {
	t.Helper()
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(ndjson))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var h struct {
			Type string `json:"type"`
			V    string `json:"v"`
		}
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Type != typ || record.CheckVersion(h.Type, h.V) != nil {
			t.Fatalf("line %d is not a %s record: %s", n+1, typ, sc.Text())
		}
		n++
	}
	return n
}

// TestStageRecordsRoundTrip feeds extract's own chunk records to embed over
// a pipe, the documented `extract | embed` pipeline.
func TestStageRecordsRoundTrip(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	runPipe(t,
		exec.Command(bin("dir2mcp-scan"), "--dir", dir),
		exec.Command(bin("dir2mcp-extract"), "--dir", dir),
		exec.Command(bin("dir2mcp-embed"), "--dir", dir))
	out, err := exec.Command(bin("dir2mcp"), "status", "--dir", dir, "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ Chunks, Embedded, Pending int }
	json.Unmarshal(out, &st)
	if st.Chunks == 0 || st.Embedded != st.Chunks || st.Pending != 0 {
		t.Fatalf("after extract | embed: %+v", st)
	}
	// A record of an unknown major version is refused with a clear error.
	cmd := exec.Command(bin("dir2mcp-extract"), "--dir", dir)
	cmd.Stdin = strings.NewReader(`{"type":"document","v":"9.0","rel_path":"x"}` + "\n")
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "version 9.0 is not supported") {
		t.Fatalf("unknown major version: err=%v output=%s", err, msg)
	}
}
