package indexer

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

// fakeOCR "recognises" documents by returning text per page; it records
// the page selections it was asked for.
type fakeOCR struct {
	mu    sync.Mutex
	calls [][]int
	text  func(d ocr.Document, page int) string
	pages int // pages of a PDF (fixtures: digital.pdf has 3)
	err   error
}

func (f *fakeOCR) Provider() string { return "fake" }
func (f *fakeOCR) Model() string    { return "fake-ocr-1" }
func (f *fakeOCR) OCR(_ context.Context, d ocr.Document) (*ocr.Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, d.Pages)
	err := f.err
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	res := &ocr.Result{Provider: "fake", Model: "fake-ocr-1"}
	pages := d.Pages
	if len(pages) == 0 {
		pages = []int{1}
		for p := 2; d.IsPDF() && p <= f.pages; p++ {
			pages = append(pages, p)
		}
	}
	for _, p := range pages {
		res.Pages = append(res.Pages, ocr.Page{Number: p, Markdown: f.text(d, p)})
	}
	return res, nil
}

func (f *fakeOCR) Calls() [][]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]int(nil), f.calls...)
}

type fakeSTT struct {
	mu    sync.Mutex
	calls int
}

func (f *fakeSTT) Provider() string { return "mistral" }
func (f *fakeSTT) Model() string    { return "voxtral-fake" }
func (f *fakeSTT) Transcribe(_ context.Context, a transcript.Audio) (*transcript.Transcript, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	segs := []transcript.Timed{{Text: "Good morning team.", Start: 0, End: 1.2}, {Text: "Review the quarterly budget.", Start: 31, End: 33.5}}
	if !a.Timestamps {
		segs = nil
	}
	return transcript.FromSegments("mistral", "voxtral-fake", "en", "Good morning team. Review the quarterly budget.", segs), nil
}

// copyFixtures copies testdata/multimodal files into the fixture root.
func (f *fixture) copyFixtures(names ...string) {
	f.t.Helper()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "multimodal", n))
		if err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.root, n), b, 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *fixture) runWith(m *Media) Snapshot {
	f.t.Helper()
	p := &Progress{}
	j := &Job{Config: f.cfg, Root: f.root, Dir: f.dir, Store: f.st, Embedders: hasher(f.t, 64), Progress: p,
		Events: events.NewJSON(f.log), Media: m}
	if err := j.Run(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	return p.Snapshot()
}

type chunkRow struct {
	Text string
	Span record.Span
}

// chunksOf returns the live chunks of relPath in ordinal order.
func (f *fixture) chunksOf(relPath string) []chunkRow {
	f.t.Helper()
	rows, err := f.st.ReadDB().Query(`SELECT c.text, COALESCE(s.span_kind, ''), COALESCE(s.start, 0), COALESCE(s."end", 0)
		FROM chunks c JOIN documents d ON d.doc_id = c.doc_id LEFT JOIN spans s ON s.chunk_id = c.chunk_id
		WHERE d.rel_path = ? AND c.deleted = 0 ORDER BY c.rep_id, c.ordinal`, relPath)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	var out []chunkRow
	for rows.Next() {
		var c chunkRow
		var kind string
		var a, b int64
		if err := rows.Scan(&c.Text, &kind, &a, &b); err != nil {
			f.t.Fatal(err)
		}
		if kind != "" {
			c.Span = record.SpanFrom(kind, a, b)
		}
		out = append(out, c)
	}
	return out
}

func (f *fixture) doc(relPath string) (status, code, reason string) {
	f.t.Helper()
	d, ok, err := f.st.Document(context.Background(), relPath)
	if err != nil || !ok {
		f.t.Fatalf("document %s: ok=%v err=%v", relPath, ok, err)
	}
	if d.Deleted {
		return "deleted", "", ""
	}
	return d.Status, d.ErrorCode, d.Error
}

func (f *fixture) rep(relPath, repType string) (content, meta string) {
	f.t.Helper()
	d, ok, err := f.st.Document(context.Background(), relPath)
	if err != nil || !ok {
		f.t.Fatalf("document %s: %v", relPath, err)
	}
	c, m, found, err := f.st.RepContent(context.Background(), d.DocID, repType)
	if err != nil || !found {
		f.t.Fatalf("%s has no %s representation (err %v)", relPath, repType, err)
	}
	return c, m
}

// A digital PDF is searchable offline: its text layer is read page by
// page and every chunk cites its page.
func TestDigitalPDFOfflineWithPageSpans(t *testing.T) {
	f := newFixture(t, nil)
	f.copyFixtures("digital.pdf", "encrypted-no-user-password.pdf")
	f.runWith(nil)
	for _, p := range []string{"digital.pdf", "encrypted-no-user-password.pdf"} {
		if st, code, why := f.doc(p); st != record.StatusOK {
			t.Fatalf("%s: %s %s %s", p, st, code, why)
		}
	}
	pages := map[int]string{}
	for _, c := range f.chunksOf("digital.pdf") {
		if c.Span.Kind != record.SpanPage {
			t.Fatalf("chunk without a page span: %+v", c)
		}
		pages[c.Span.Page] += c.Text
	}
	if !strings.Contains(pages[1], "Invoice 4711") || !strings.Contains(pages[2], "vault code") || !strings.Contains(pages[3], "thirty second windows") {
		t.Errorf("page texts: %v", pages)
	}
	content, meta := f.rep("digital.pdf", record.RepOCRMarkdown)
	if got := strings.Split(content, PageSep); len(got) != 3 || !strings.Contains(got[1], "vault code") {
		t.Errorf("stored content is not split per page: %q", content)
	}
	var m pagesMeta
	if err := json.Unmarshal([]byte(meta), &m); err != nil || m.Pages != 3 || len(m.TextLayerPages) != 3 || len(m.OCRPages) != 0 {
		t.Errorf("meta %s", meta)
	}
}

// Encrypted and truncated PDFs are per-file errors with a reason; the run
// completes and indexes the rest.
func TestHostilePDFsArePerFileErrors(t *testing.T) {
	f := newFixture(t, map[string]string{"notes.md": "# Notes\n\nStill indexed.\n"})
	f.copyFixtures("encrypted-aes256.pdf", "truncated.pdf")
	s := f.runWith(nil)
	if s.Errors != 2 || s.Indexed != 1 {
		t.Fatalf("run %+v", s)
	}
	for p, want := range map[string]string{"encrypted-aes256.pdf": "encrypted", "truncated.pdf": "truncated"} {
		st, code, why := f.doc(p)
		if st != record.StatusError || code != string(errcode.ExtractFailed) || !strings.Contains(why, want) {
			t.Errorf("%s: %s %s %q", p, st, code, why)
		}
	}
	if n := strings.Count(f.log.String(), `"file_error"`); n != 2 {
		t.Errorf("%d file_error events:\n%s", n, f.log)
	}
}

// A scanned PDF waits for OCR; once an engine exists the policy changes,
// only the page without a text layer is recognised, and a further run
// recognises nothing.
func TestScannedPDFWaitsForOCRThenPagesWithoutText(t *testing.T) {
	f := newFixture(t, nil)
	f.copyFixtures("scanned.pdf")
	f.runWith(nil)
	if st, code, why := f.doc("scanned.pdf"); st != record.StatusSkipped || code != string(errcode.AwaitingProvider) || !strings.Contains(why, "OCR") {
		t.Fatalf("without OCR: %s %s %q", st, code, why)
	}
	eng := &fakeOCR{text: func(ocr.Document, int) string { return "Quarterly operations report, scanned." }}
	f.runWith(&Media{OCR: eng, OCRLocal: true})
	if st, _, why := f.doc("scanned.pdf"); st != record.StatusOK {
		t.Fatalf("with OCR: %s %s", st, why)
	}
	if calls := eng.Calls(); len(calls) != 1 || len(calls[0]) != 0 && (len(calls[0]) != 1 || calls[0][0] != 1) {
		t.Fatalf("OCR calls %v, want one for page 1", calls)
	}
	cs := f.chunksOf("scanned.pdf")
	if len(cs) != 1 || cs[0].Span != record.Page(1) || !strings.Contains(cs[0].Text, "scanned") {
		t.Errorf("chunks %+v", cs)
	}
	f.runWith(&Media{OCR: eng, OCRLocal: true})
	if n := len(eng.Calls()); n != 1 {
		t.Errorf("unchanged PDF recognised again: %d calls", n)
	}
}

// ingest.pdf.mode ocr sends every page to a provider's OCR; with only the
// offline engine, pages keep their text layer; mode auto OCRs only pages
// without one.
func TestPDFModes(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		local   bool
		ocrCall bool
	}{{"ocr", false, true}, {"ocr", true, false}, {"auto", false, false}} {
		f := newFixture(t, nil)
		f.copyFixtures("digital.pdf")
		f.cfg.Ingest.PDF.Mode = tc.mode
		eng := &fakeOCR{pages: 3, text: func(_ ocr.Document, p int) string { return "OCR TEXT OF PAGE " + string(rune('0'+p)) }}
		f.runWith(&Media{OCR: eng, OCRLocal: tc.local})
		calls := eng.Calls()
		if tc.ocrCall != (len(calls) == 1) {
			t.Errorf("%s local=%v: OCR calls %v", tc.mode, tc.local, calls)
		}
		cs := f.chunksOf("digital.pdf")
		ocrd := strings.Contains(cs[len(cs)-1].Text, "OCR TEXT OF PAGE 3")
		if ocrd != tc.ocrCall || cs[len(cs)-1].Span != record.Page(3) {
			t.Errorf("%s local=%v: last chunk %+v", tc.mode, tc.local, cs[len(cs)-1])
		}
	}
}

func TestImageOCRAndSecretsInRecognisedText(t *testing.T) {
	f := newFixture(t, nil)
	f.copyFixtures("invoice.png")
	writeFile(t, filepath.Join(f.root, "keys.png"), string(mustRead(t, "invoice.png"))+"\x00different bytes")
	f.runWith(nil)
	if st, code, why := f.doc("invoice.png"); st != record.StatusSkipped || code != string(errcode.AwaitingProvider) || !strings.Contains(why, "OCR") {
		t.Fatalf("without OCR: %s %s %q", st, code, why)
	}
	eng := &fakeOCR{text: func(d ocr.Document, _ int) string {
		if strings.HasSuffix(d.Name, "keys.png") {
			return "aws key AKIAABCDEFGHIJKLMNOP"
		}
		return "Invoice 4711: total due 1,234.56 EUR"
	}}
	f.runWith(&Media{OCR: eng})
	cs := f.chunksOf("invoice.png")
	if len(cs) != 1 || cs[0].Span != record.Page(1) || !strings.Contains(cs[0].Text, "Invoice 4711") {
		t.Errorf("chunks %+v", cs)
	}
	var dot bytes.Buffer
	png.Encode(&dot, image.NewGray(image.Rect(0, 0, 16, 16)))
	writeFile(t, filepath.Join(f.root, "dot.png"), dot.String())
	n := len(eng.Calls())
	f.runWith(&Media{OCR: eng})
	if st, code, why := f.doc("dot.png"); st != record.StatusSkipped || code != string(errcode.DocTypeUnsupported) || !strings.Contains(why, "16×16") || len(eng.Calls()) != n {
		t.Errorf("icon: %s %s %q, %d OCR calls", st, code, why, len(eng.Calls())-n)
	}
	if st, code, _ := f.doc("keys.png"); st != record.StatusSkipped || code != string(errcode.SecretExcluded) {
		t.Errorf("secret in OCR text: %s %s", st, code)
	}
	if len(f.chunksOf("keys.png")) != 0 {
		t.Error("secret OCR text was indexed")
	}
}

// A provider failure is a per-document error with the provider's code,
// retried by the next run.
func TestOCRFailureIsRetried(t *testing.T) {
	f := newFixture(t, nil)
	f.copyFixtures("invoice.png")
	eng := &fakeOCR{text: func(ocr.Document, int) string { return "Invoice 4711" },
		err: &errcode.Error{Code: errcode.MistralRateLimit, Message: "rate limited", Retryable: true}}
	s := f.runWith(&Media{OCR: eng})
	if st, code, _ := f.doc("invoice.png"); s.Errors != 1 || st != record.StatusError || code != string(errcode.MistralRateLimit) {
		t.Fatalf("run %+v: %s %s", s, st, code)
	}
	eng.err = nil
	f.runWith(&Media{OCR: eng})
	if st, _, why := f.doc("invoice.png"); st != record.StatusOK {
		t.Fatalf("retry: %s %s", st, why)
	}
}

func TestAudioTranscriptWithTimeSpans(t *testing.T) {
	f := newFixture(t, nil)
	f.copyFixtures("standup.wav")
	f.runWith(nil)
	st, code, why := f.doc("standup.wav")
	if st != record.StatusSkipped || code != string(errcode.AwaitingProvider) || !strings.Contains(why, "speech-to-text") {
		t.Fatalf("without STT: %s %s %q", st, code, why)
	}
	stt := &fakeSTT{}
	f.runWith(&Media{STT: stt, Timestamps: true})
	cs := f.chunksOf("standup.wav")
	if len(cs) != 2 || cs[0].Span != record.Time(0, 1200) || cs[1].Span != record.Time(31000, 33500) {
		t.Fatalf("chunks %+v", cs)
	}
	_, meta := f.rep("standup.wav", record.RepTranscript)
	var m map[string]any
	json.Unmarshal([]byte(meta), &m)
	if m["provider"] != "mistral" || m["model"] != "voxtral-fake" || m["timestamps"] != true || m["language"] != "en" {
		t.Errorf("meta_json %s", meta)
	}
	f.runWith(&Media{STT: stt, Timestamps: true})
	if stt.calls != 1 {
		t.Errorf("%d transcriptions, want 1", stt.calls)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "multimodal", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestArchiveMembersAreDocuments(t *testing.T) {
	f := newFixture(t, nil)
	f.copyFixtures("docs.zip", "docs.tar.gz", "nested.zip", "zip-slip.zip")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("compressed text\n"))
	zw.Close()
	writeFile(t, filepath.Join(f.root, "data.txt.gz"), gz.String())
	f.runWith(nil)
	for _, p := range []string{"docs.zip!/docs/runbook.txt", "docs.tar.gz!/docs/sub/design.md",
		"nested.zip!/inner.tar.gz!/docs/runbook.txt", "zip-slip.zip!/ok/inside.txt"} {
		if st, _, why := f.doc(p); st != record.StatusOK {
			t.Errorf("%s: %s %s", p, st, why)
		}
		if len(f.chunksOf(p)) == 0 {
			t.Errorf("%s has no chunks", p)
		}
	}
	d, _, _ := f.st.Document(context.Background(), "docs.zip!/docs/sub/design.md")
	if d.SourceType != record.SourceArchiveMember || d.DocType != record.DocMarkdown {
		t.Errorf("member %+v", d)
	}
	if n := strings.Count(f.log.String(), `"code":"FORBIDDEN"`); n != 2 {
		t.Errorf("want 2 file_error events for the zip-slip names, log:\n%s", f.log)
	}
	if st, code, why := f.doc("data.txt.gz"); st != record.StatusSkipped || code != string(errcode.DocTypeUnsupported) || !strings.Contains(why, "only zip, tar") {
		t.Errorf("gzip file: %s %s %q", st, code, why)
	}
	if _, err := os.Stat("/tmp/dir2mcp-zip-slip-canary.txt"); err == nil {
		t.Error("zip-slip member was written outside the index")
	}
	// Shallow mode does not open nested archives.
	f.cfg.Ingest.Archives.Mode = "shallow"
	f.runWith(nil)
	if st, _, _ := f.doc("nested.zip!/inner.tar.gz!/docs/runbook.txt"); st != "deleted" {
		t.Errorf("shallow: nested member is %s", st)
	}
	if st, code, _ := f.doc("nested.zip!/inner.tar.gz"); st != record.StatusSkipped || code != string(errcode.DocTypeUnsupported) {
		t.Errorf("shallow: nested archive is %s %s", st, code)
	}
	// Deleting an archive deletes its members.
	os.Remove(filepath.Join(f.root, "docs.zip"))
	f.runWith(nil)
	if st, _, _ := f.doc("docs.zip!/docs/runbook.txt"); st != "deleted" {
		t.Errorf("member of a deleted archive is %s", st)
	}
}

// Members run through the same exclusion engine as files: excluded paths
// and secret contents are skipped.
func TestArchiveMembersAreExcludedLikeFiles(t *testing.T) {
	f := newFixture(t, nil)
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for name, body := range map[string]string{
		"app/.env":      "DB_PASSWORD=hunter2\n",
		"app/config.go": "package app\n\nconst token = \"AKIAABCDEFGHIJKLMNOP\"\n",
		"app/readme.md": "# App\n\nThe app reads its settings from the environment.\n",
	} {
		w, _ := z.Create(name)
		w.Write([]byte(body))
	}
	z.Close()
	writeFile(t, filepath.Join(f.root, "app.zip"), b.String())
	f.runWith(nil)
	for p, code := range map[string]errcode.Code{"app.zip!/app/.env": errcode.PathExcluded, "app.zip!/app/config.go": errcode.SecretExcluded} {
		if st, c, _ := f.doc(p); st != record.StatusSkipped || c != string(code) {
			t.Errorf("%s: %s %s, want skipped %s", p, st, c, code)
		}
		if len(f.chunksOf(p)) != 0 {
			t.Errorf("%s was indexed", p)
		}
	}
	if st, _, _ := f.doc("app.zip!/app/readme.md"); st != record.StatusOK {
		t.Errorf("readme: %s", st)
	}
}

// A small zip that expands far past the cap is a per-file error; the run
// completes.
func TestZipBombIsPerFileError(t *testing.T) {
	if testing.Short() {
		t.Skip("expands 150 MB")
	}
	f := newFixture(t, map[string]string{"a.txt": "an ordinary file\n"})
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	zero := make([]byte, 1<<20)
	for i := range 10 {
		w, _ := z.Create("zeros" + string(rune('0'+i)) + ".txt")
		for range 15 {
			w.Write(zero)
		}
	}
	z.Close()
	if b.Len() > 400<<10 {
		t.Fatalf("bomb is %d bytes", b.Len())
	}
	writeFile(t, filepath.Join(f.root, "bomb.zip"), b.String())
	s := f.runWith(nil)
	st, code, why := f.doc("bomb.zip")
	if st != record.StatusError || code != string(errcode.FileTooLarge) || !strings.Contains(why, "expands") {
		t.Fatalf("bomb: %s %s %q", st, code, why)
	}
	if st, _, _ := f.doc("a.txt"); st != record.StatusOK || s.Errors < 1 {
		t.Errorf("run %+v", s)
	}
}

func TestPolicyFollowsEnginesAndModes(t *testing.T) {
	cfg := newFixture(t, nil).cfg
	base := PolicyFingerprint(cfg)
	if PolicyFingerprintWith(cfg, nil) != base || PolicyFingerprintWith(cfg, &Media{}) != base {
		t.Error("no engines should match the engine-less policy")
	}
	withOCR := PolicyFingerprintWith(cfg, &Media{OCR: &fakeOCR{}})
	withSTT := PolicyFingerprintWith(cfg, &Media{STT: &fakeSTT{}, Timestamps: true})
	if withOCR == base || withSTT == base || withOCR == withSTT {
		t.Error("configuring a provider must change the policy")
	}
	cfg.Ingest.Archives.Mode = "shallow"
	if PolicyFingerprint(cfg) == base {
		t.Error("archive mode not in the policy")
	}
}

// A file the OCR engine itself rejects is not sent to it again while its
// bytes are unchanged (every restart would otherwise re-run OCR on it);
// it stays an error and is still reported by each run.
func TestOCRRejectedFileIsNotRetriedUnchanged(t *testing.T) {
	f := newFixture(t, nil)
	f.copyFixtures("invoice.png")
	eng := &fakeOCR{text: func(ocr.Document, int) string { return "Invoice 4711" },
		err: &errcode.Error{Code: errcode.OCRFailed, Message: "could not read the image"}}
	for run := 1; run <= 2; run++ {
		s := f.runWith(&Media{OCR: eng})
		if st, code, _ := f.doc("invoice.png"); s.Errors != 1 || st != record.StatusError || code != string(errcode.OCRFailed) {
			t.Fatalf("run %d %+v: %s %s", run, s, st, code)
		}
	}
	if len(eng.calls) != 1 {
		t.Fatalf("%d OCR calls over two runs of an unchanged file, want 1", len(eng.calls))
	}
	// Changed bytes are tried again.
	p := filepath.Join(f.root, "invoice.png")
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append(data, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	eng.err = nil
	f.runWith(&Media{OCR: eng})
	if st, _, why := f.doc("invoice.png"); st != record.StatusOK || len(eng.calls) != 2 {
		t.Fatalf("after a change: %s %s, %d calls", st, why, len(eng.calls))
	}
}
