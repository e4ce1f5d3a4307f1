package tesseract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
)

func engine(t *testing.T) *Engine {
	t.Helper()
	if !Available() {
		t.Skip("tesseract is not installed; apt-get install tesseract-ocr tesseract-ocr-eng poppler-utils to run the offline OCR tests")
	}
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func fixture(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "multimodal", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestImageText(t *testing.T) {
	e := engine(t)
	res, err := e.OCR(context.Background(), ocr.Document{Data: fixture(t, "invoice.png"), MIME: "image/png", Name: "invoice.png"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) != 1 || !strings.Contains(flat(res.Pages[0].Markdown), "Payment deadline: 15 March 2026") {
		t.Fatalf("pages %+v", res.Pages)
	}
	if res.Provider != "tesseract" || !strings.HasPrefix(res.Model, "tesseract-") || !strings.HasSuffix(res.Model, "/eng@200") {
		t.Fatalf("provider %q model %q", res.Provider, res.Model)
	}
}

func TestScannedPDF(t *testing.T) {
	e := engine(t)
	if e.opt.PDFToPPM == "" {
		t.Skip("pdftoppm is not installed; apt-get install poppler-utils")
	}
	res, err := e.OCR(context.Background(), ocr.Document{Data: fixture(t, "scanned.pdf"), MIME: "application/pdf", Name: "scanned.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) != 1 || res.Pages[0].Number != 1 || !strings.Contains(flat(res.Pages[0].Markdown), "restart the ingest worker") {
		t.Fatalf("pages %+v", res.Pages)
	}
	res, err = e.OCR(context.Background(), ocr.Document{Data: fixture(t, "digital.pdf"), MIME: "application/pdf", Pages: []int{3}})
	if err != nil || len(res.Pages) != 1 || res.Pages[0].Number != 3 || !strings.Contains(flat(res.Pages[0].Markdown), "thirty second windows") {
		t.Fatalf("page 3: %+v %v", res, err)
	}
}

func TestBadInput(t *testing.T) {
	e := engine(t)
	_, err := e.OCR(context.Background(), ocr.Document{Data: []byte("\x89PNG\r\n\x1a\nbroken"), MIME: "image/png", Name: "bad.png"})
	if ce := errcode.As(err); ce.Code != errcode.OCRFailed || !strings.Contains(ce.Message, "bad.png") {
		t.Fatalf("corrupt image: %v", err)
	}
	if _, err := e.OCR(context.Background(), ocr.Document{Data: []byte("x"), MIME: "text/plain"}); errcode.Of(err) != errcode.DocTypeUnsupported {
		t.Fatalf("text: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.OCR(ctx, ocr.Document{Data: fixture(t, "invoice.png"), MIME: "image/png"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestMissingBinaryIsExplained(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := New(Options{})
	if ce := errcode.As(err); ce.Code != errcode.OCRFailed || !strings.Contains(ce.Message, "apt-get install tesseract-ocr") {
		t.Fatalf("got %v", err)
	}
}

// A tesseract that is installed but does not run (a broken package)
// fails every OCR with OCR_FAILED saying so, and names itself broken in the
// model, so its results are never cached as a working engine's.
func TestBrokenBinaryIsExplained(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tesseract")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 'error while loading shared libraries' >&2\nexit 127\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := New(Options{Tesseract: bin})
	if err != nil {
		t.Fatalf("New waits for nothing and fails only without the binary: %v", err)
	}
	_, err = e.OCR(context.Background(), ocr.Document{Data: []byte("png"), MIME: "image/png"})
	if ce := errcode.As(err); ce.Code != errcode.OCRFailed || !strings.Contains(ce.Message, "tesseract does not run") {
		t.Fatalf("OCR with a broken tesseract: %v", err)
	}
	if m := e.Model(); !strings.HasPrefix(m, "tesseract-broken/") {
		t.Fatalf("model %q", m)
	}
}

func TestCachedEngineRecognisesOnce(t *testing.T) {
	e := engine(t)
	store := cache.Open(t.TempDir())
	c := ocr.Cached(e, store)
	doc := ocr.Document{Data: fixture(t, "invoice.png"), MIME: "image/png"}
	first, err := c.OCR(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.OCR(context.Background(), doc)
	if err != nil || second.Pages[0].Markdown != first.Pages[0].Markdown {
		t.Fatalf("second: %+v %v", second, err)
	}
	if hits, misses := store.Stats(); hits != 1 || misses != 1 {
		t.Fatalf("hits %d misses %d", hits, misses)
	}
}

// An engine without pdftoppm names itself differently, so installing
// pdftoppm changes the indexing policy and PDFs that failed for want of it
// are tried again (their bytes have not changed).
func TestModelNamesMissingPDFToPPM(t *testing.T) {
	bin := t.TempDir()
	fake := filepath.Join(bin, "tesseract")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'tesseract 5.3.0'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	without, err := New(Options{Tesseract: fake})
	if err != nil {
		t.Fatal(err)
	}
	with, err := New(Options{Tesseract: fake, PDFToPPM: "/usr/bin/pdftoppm"})
	if err != nil {
		t.Fatal(err)
	}
	if with.Model() != "tesseract-5.3.0/eng@200" {
		t.Errorf("with pdftoppm: %q", with.Model())
	}
	if without.Model() == with.Model() || !strings.HasSuffix(without.Model(), "/no-pdftoppm") {
		t.Errorf("without pdftoppm: %q (with: %q)", without.Model(), with.Model())
	}
}
