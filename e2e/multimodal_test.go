package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/ocr/tesseract"
	"github.com/dir2mcp/dir2mcp/lib/provider/mistral/mistraltest"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// multimodalCorpus copies testdata/multimodal (without its generator) and
// adds a zip bomb: ~150 KB that expands to 150 MB.
func multimodalCorpus(t *testing.T) string {
	t.Helper()
	dir := copyCorpus(t, "multimodal")
	os.Remove(filepath.Join(dir, "make.sh"))
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	zero := make([]byte, 1<<20)
	for i := range 10 {
		w, _ := z.Create("zeros/" + string(rune('a'+i)) + ".txt")
		for range 15 {
			w.Write(zero)
		}
	}
	z.Close()
	writeFile(t, filepath.Join(dir, "bomb.zip"), b.String())
	return dir
}

// fileErrors collects file_error events until index_complete.
func (p *proc) fileErrors(timeout time.Duration) (map[string]string, record.Event) {
	p.t.Helper()
	errs := map[string]string{}
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-p.events:
			if !ok {
				p.t.Fatalf("process exited before index_complete; stderr:\n%s", p.stderr.String())
			}
			switch ev.Event {
			case "fatal":
				p.t.Fatalf("fatal: %v", ev.Data)
			case "file_error":
				rel, _ := ev.Data["rel_path"].(string)
				code, _ := ev.Data["code"].(string)
				errs[rel] += code + " "
			case "index_complete":
				return errs, ev
			}
		case <-deadline:
			p.t.Fatalf("no index_complete within %s; stderr:\n%s", timeout, p.stderr.String())
		}
	}
}

type mmHit struct {
	RelPath string `json:"rel_path"`
	RepType string `json:"rep_type"`
	Snippet string `json:"snippet"`
	Span    struct {
		Kind    string `json:"kind"`
		Page    int    `json:"page"`
		StartMs int64  `json:"start_ms"`
		EndMs   int64  `json:"end_ms"`
	} `json:"span"`
}

func (c *mcp) mmSearch(query string, extra map[string]any) []mmHit {
	c.t.Helper()
	args := map[string]any{"query": query}
	for k, v := range extra {
		args[k] = v
	}
	r := c.tool("dir2mcp.search", args)
	var out struct{ Hits []mmHit }
	if r.IsError || json.Unmarshal(r.StructuredContent, &out) != nil {
		c.t.Fatalf("search %q: %s", query, r.Content[0].Text)
	}
	return out.Hits
}

func hasHit(hits []mmHit, rel, kind string, page int) bool {
	for _, h := range hits {
		if h.RelPath == rel && h.Span.Kind == kind && (kind != "page" || h.Span.Page == page) {
			return true
		}
	}
	return false
}

// Offline, with no key: a digital PDF is searchable with page citations,
// archive members are documents, audio is listed as skipped with a reason,
// hostile files are per-file errors and indexing completes. With tesseract
// installed, the scanned PDF and the PNG are searchable too.
func TestMultimodalOffline(t *testing.T) {
	dir := multimodalCorpus(t)
	p := start(t, "dir2mcp", []string{"MISTRAL_API_KEY=", "ELEVENLABS_API_KEY="}, upArgs(dir)...)
	srv := p.connect()
	errs, done := p.fileErrors(90 * time.Second)
	for rel, code := range map[string]string{"encrypted-aes256.pdf": "EXTRACT_FAILED", "truncated.pdf": "EXTRACT_FAILED",
		"bomb.zip": "FILE_TOO_LARGE", "zip-slip.zip": "FORBIDDEN"} {
		if !strings.Contains(errs[rel], code) {
			t.Errorf("%s: file_error %q, want %s", rel, errs[rel], code)
		}
	}
	if done.Data["indexed"].(float64) < 5 {
		t.Errorf("index_complete %v", done.Data)
	}
	c := newMCP(t, srv)
	c.initialize()
	if !hasHit(c.mmSearch("where is the vault code stored", map[string]any{"path_prefix": "digital.pdf"}), "digital.pdf", "page", 2) {
		t.Error("digital PDF page 2 not found offline")
	}
	hits := c.mmSearch("restart the ingest worker with systemctl", map[string]any{"k": 20})
	if !hasHit(hits, "docs.zip!/docs/runbook.txt", "lines", 0) || !hasHit(hits, "nested.zip!/inner.tar.gz!/docs/runbook.txt", "lines", 0) {
		t.Errorf("archive members not found: %+v", hits)
	}
	var open struct {
		Content string
		Span    struct{ Page int }
	}
	r := c.tool("dir2mcp.open_file", map[string]any{"rel_path": "digital.pdf", "page": 3})
	json.Unmarshal(r.StructuredContent, &open)
	if !strings.Contains(open.Content, "thirty second windows") || open.Span.Page != 3 {
		t.Errorf("open_file page 3: %s", r.Content[0].Text)
	}
	var list struct {
		Files []struct {
			RelPath string `json:"rel_path"`
			Status  string `json:"status"`
			Reason  string `json:"reason"`
		}
	}
	json.Unmarshal(c.tool("dir2mcp.list_files", map[string]any{"limit": 100}).StructuredContent, &list)
	found := false
	for _, f := range list.Files {
		if f.RelPath == "standup.wav" {
			found = true
			if f.Status != "skipped" || !strings.Contains(f.Reason, "speech-to-text") || !strings.Contains(f.Reason, "MISTRAL_API_KEY") {
				t.Errorf("standup.wav listed as %s: %q", f.Status, f.Reason)
			}
		}
		if strings.Contains(f.RelPath, "..") || strings.HasPrefix(f.RelPath, "/") {
			t.Errorf("unsafe member listed: %s", f.RelPath)
		}
	}
	if !found {
		t.Error("standup.wav not listed")
	}
	var stats struct {
		Documents struct {
			AwaitingProvider []struct {
				DocType string `json:"doc_type"`
				Count   int    `json:"count"`
				Reason  string `json:"reason"`
			} `json:"awaiting_provider"`
		} `json:"documents"`
	}
	json.Unmarshal(c.tool("dir2mcp.stats", map[string]any{}).StructuredContent, &stats)
	audio := false
	for _, w := range stats.Documents.AwaitingProvider {
		audio = audio || w.DocType == "audio" && w.Count == 1 && strings.Contains(w.Reason, "speech-to-text")
	}
	if !audio {
		t.Errorf("stats does not report the waiting audio: %+v", stats.Documents.AwaitingProvider)
	}
	if !tesseract.Available() {
		t.Log("tesseract not installed: skipping offline OCR of scanned.pdf and invoice.png (apt-get install tesseract-ocr tesseract-ocr-eng poppler-utils)")
		return
	}
	if !hasHit(c.mmSearch("invoice total due EUR", nil), "invoice.png", "page", 1) {
		t.Error("PNG not searchable with tesseract")
	}
	if !hasHit(c.mmSearch("quarterly operations report deployment runbook", map[string]any{"path_prefix": "scanned.pdf"}), "scanned.pdf", "page", 1) {
		t.Error("scanned PDF not searchable with tesseract")
	}
}

type mmAsk struct {
	Answer     string `json:"answer"`
	AnswerKind string `json:"answer_kind"`
	Citations  []struct {
		ChunkID int64  `json:"chunk_id"`
		RelPath string `json:"rel_path"`
	} `json:"citations"`
	Hits []struct {
		ChunkID int64 `json:"chunk_id"`
	} `json:"hits"`
}

func (c *mcp) ask(args map[string]any) mmAsk {
	c.t.Helper()
	r := c.tool("dir2mcp.ask", args)
	var a mmAsk
	if r.IsError || json.Unmarshal(r.StructuredContent, &a) != nil {
		c.t.Fatalf("ask %v: %s", args, r.Content[0].Text)
	}
	ids := map[int64]bool{}
	for _, h := range a.Hits {
		ids[h.ChunkID] = true
	}
	for _, ct := range a.Citations {
		if !ids[ct.ChunkID] {
			c.t.Errorf("citation %+v is not a hit", ct)
		}
	}
	return a
}

// With a (fake) Mistral key: OCR and transcripts land with page and time
// spans, embeddings ride out a 429 with Retry-After, ask writes answers
// citing [path#p=N] and [path@t=mm:ss-mm:ss], and a second `up` makes no
// provider call at all.
func TestMultimodalWithMistral(t *testing.T) {
	fake := mistraltest.New()
	defer fake.Close()
	scanned, _ := os.ReadFile(filepath.Join("..", "testdata", "multimodal", "scanned.pdf"))
	png, _ := os.ReadFile(filepath.Join("..", "testdata", "multimodal", "invoice.png"))
	fake.OCRPages = withDefault(func(data []byte, mime string) []string {
		switch {
		case bytes.Equal(data, scanned):
			return []string{"# Quarterly operations report (scanned)\n\nThe deployment runbook says to restart the ingest worker."}
		case bytes.Equal(data, png):
			return []string{"Invoice 4711: total due 1,234.56 EUR. Payment deadline: 15 March 2026."}
		}
		return nil
	})
	fake.FailNext(mistraltest.Embeddings, 2, http.StatusTooManyRequests, "1")
	dir := multimodalCorpus(t)
	env := []string{"MISTRAL_API_KEY=" + mistraltest.Key, "DIR2MCP_MISTRAL_BASE_URL=" + fake.URL, "ELEVENLABS_API_KEY="}
	p := start(t, "dir2mcp", env, upArgs(dir)...)
	srv := p.connect()
	errs, done := p.fileErrors(120 * time.Second)
	if !strings.Contains(errs["bomb.zip"], "FILE_TOO_LARGE") || !strings.Contains(errs["truncated.pdf"], "EXTRACT_FAILED") {
		t.Errorf("file errors %v", errs)
	}
	if done.Data["chunks_total"] != done.Data["embedded_ok"] {
		t.Errorf("not every chunk embedded after the 429s: %v", done.Data)
	}
	c := newMCP(t, srv)
	c.initialize()
	if !hasHit(c.mmSearch("quarterly operations report scanned", map[string]any{"path_prefix": "scanned.pdf"}), "scanned.pdf", "page", 1) {
		t.Error("OCR of the scanned PDF not found with its page")
	}
	a := c.ask(map[string]any{"question": "where is the vault code stored?", "path_prefix": "digital.pdf"})
	if a.AnswerKind != "generated" || !strings.Contains(a.Answer, "[digital.pdf#p=2]") || len(a.Citations) == 0 {
		t.Errorf("pdf answer %+v", a)
	}
	a = c.ask(map[string]any{"question": "what is the total due on invoice 4711?", "doc_types": []string{"image"}})
	if !strings.Contains(a.Answer, "[invoice.png#p=1]") {
		t.Errorf("image answer %+v", a)
	}
	a = c.ask(map[string]any{"question": "review the quarterly budget", "doc_types": []string{"audio"}})
	if !strings.Contains(a.Answer, "[standup.wav@t=00:00-00:02]") || len(a.Citations) != 1 {
		t.Errorf("audio answer %+v", a)
	}
	var st struct {
		Models struct {
			OCR       string `json:"ocr"`
			EmbedText string `json:"embed_text"`
		} `json:"models"`
	}
	json.Unmarshal(c.tool("dir2mcp.stats", map[string]any{}).StructuredContent, &st)
	if st.Models.OCR != "mistral/mistral-ocr-latest" || st.Models.EmbedText != "mistral/mistral-embed/1024" {
		t.Errorf("stats models %+v", st.Models)
	}
	for _, ep := range []string{mistraltest.OCR, mistraltest.Transcriptions, mistraltest.Embeddings, mistraltest.Chat} {
		if fake.Calls(ep) == 0 {
			t.Errorf("no call to %s", ep)
		}
	}
	p.stop()

	before := fake.Total()
	p2 := start(t, "dir2mcp", env, upArgs(dir)...)
	p2.fileErrors(120 * time.Second)
	if n := fake.Total() - before; n != 0 {
		t.Errorf("second up made %d provider calls, want 0", n)
	}
}

// withDefault falls back to the fake's default OCR (a PDF's text layer)
// when f has no answer.
func withDefault(f func([]byte, string) []string) func([]byte, string) []string {
	return func(data []byte, mime string) []string {
		if out := f(data, mime); out != nil {
			return out
		}
		return mistraltest.TextLayer(data, mime)
	}
}

// runCmd runs a binary with extra environment and returns its combined output.
func runCmd(env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Changing the embedder (here: adding a Mistral key, so auto turns from the
// offline model to mistral-embed) re-embeds every chunk in the new space.
func TestEmbedderChangeReembeds(t *testing.T) {
	fake := mistraltest.New()
	defer fake.Close()
	dir := copyCorpus(t, "corpus")
	run := func(env ...string) string {
		out, err := runCmd(env, bin("dir2mcp"), "index", "--dir", dir, "--json", "--non-interactive")
		if err != nil {
			t.Fatalf("index: %v\n%s", err, out)
		}
		return out
	}
	run("MISTRAL_API_KEY=")
	out := run("MISTRAL_API_KEY="+mistraltest.Key, "DIR2MCP_MISTRAL_BASE_URL="+fake.URL)
	if !strings.Contains(out, "re-embedding") || !strings.Contains(out, "mistral/mistral-embed/1024") || !strings.Contains(out, "mistral/codestral-embed/1536") {
		t.Errorf("no re-embed notice for the model change:\n%s", out)
	}
	if fake.Calls(mistraltest.Embeddings) == 0 {
		t.Error("mistral embeddings not called")
	}
}
