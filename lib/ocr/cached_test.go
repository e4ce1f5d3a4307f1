package ocr

import (
	"context"
	"errors"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/cache"
)

// countingEngine recognises "text" as one page per call, counting calls.
type countingEngine struct {
	calls int
	model string
	fail  error
}

func (e *countingEngine) Provider() string { return "fake" }
func (e *countingEngine) Model() string    { return e.model }
func (e *countingEngine) OCR(ctx context.Context, d Document) (*Result, error) {
	e.calls++
	if e.fail != nil {
		return nil, e.fail
	}
	return &Result{Provider: "fake", Model: e.model, Pages: []Page{{Number: 1, Markdown: string(d.Data)}}}, nil
}

func TestCachedPaysOncePerContentPagesAndModel(t *testing.T) {
	dir := t.TempDir()
	e := &countingEngine{model: "m1"}
	c := Cached(e, cache.Open(dir))
	doc := Document{Data: []byte("scan bytes"), MIME: "application/pdf"}
	for i := 0; i < 3; i++ {
		r, err := c.OCR(context.Background(), doc)
		if err != nil || r.Pages[0].Markdown != "scan bytes" {
			t.Fatalf("%+v %v", r, err)
		}
	}
	if e.calls != 1 {
		t.Fatalf("%d provider calls for one document", e.calls)
	}
	// A new process over the same state dir still hits.
	if _, err := Cached(e, cache.Open(dir)).OCR(context.Background(), doc); err != nil || e.calls != 1 {
		t.Fatalf("reopened: calls %d, %v", e.calls, err)
	}
	// Other pages, other bytes or another model are other entries.
	c.OCR(context.Background(), Document{Data: doc.Data, MIME: doc.MIME, Pages: []int{2}})
	c.OCR(context.Background(), Document{Data: []byte("other"), MIME: doc.MIME})
	Cached(&countingEngine{model: "m2"}, cache.Open(dir)).OCR(context.Background(), doc)
	if e.calls != 3 {
		t.Fatalf("calls %d, want 3", e.calls)
	}
}

func TestCachedDoesNotStoreFailures(t *testing.T) {
	e := &countingEngine{model: "m", fail: errors.New("boom")}
	c := Cached(e, cache.Open(t.TempDir()))
	for i := 0; i < 2; i++ {
		if _, err := c.OCR(context.Background(), Document{Data: []byte("x")}); err == nil {
			t.Fatal("no error")
		}
	}
	if e.calls != 2 {
		t.Fatalf("calls %d", e.calls)
	}
}

func TestMIMEByExt(t *testing.T) {
	for name, want := range map[string]string{"a.PDF": "application/pdf", "x.jpeg": "image/jpeg", "s.webp": "image/webp", "t.tiff": "image/tiff", "n.txt": ""} {
		if got := MIMEByExt(name); got != want {
			t.Errorf("MIMEByExt(%s) = %q", name, got)
		}
	}
}
