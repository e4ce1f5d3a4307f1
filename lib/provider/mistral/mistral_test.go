package mistral

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/annotation"
	"github.com/dir2mcp/dir2mcp/lib/chat"
	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
	"github.com/dir2mcp/dir2mcp/lib/provider"
	"github.com/dir2mcp/dir2mcp/lib/provider/mistral/mistraltest"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

func inputs(n int, text func(i int) string) []embed.Input {
	in := make([]embed.Input, n)
	for i := range in {
		in[i] = embed.Input{Text: text(i), Kind: record.KindText}
	}
	return in
}

func TestNewNeedsKey(t *testing.T) {
	_, err := New(Options{APIKey: config.Secret{Source: "env:MISTRAL_API_KEY"}})
	if e := errcode.As(err); e.Code != errcode.ConfigInvalid || !strings.Contains(e.Message, "MISTRAL_API_KEY") {
		t.Fatalf("got %v", err)
	}
}

func TestEmbedderIDsAndDimensions(t *testing.T) {
	c := newFake(t).client(t, Options{})
	for _, tc := range []struct {
		model string
		dim   int
		id    string
	}{
		{"mistral-embed", 0, "mistral/mistral-embed/1024"},
		{"codestral-embed", 0, "mistral/codestral-embed/1536"},
		{"codestral-embed", 3072, "mistral/codestral-embed/3072"},
		{"codestral-embed-2505", 256, "mistral/codestral-embed-2505/256"},
		{"my-finetune", 768, "mistral/my-finetune/768"},
	} {
		e, err := c.Embedder(tc.model, tc.dim)
		if err != nil || e.ID() != tc.id {
			t.Errorf("Embedder(%s, %d) = %v, %v; want %s", tc.model, tc.dim, e, err, tc.id)
		}
	}
	for _, bad := range []struct {
		model string
		dim   int
	}{{"mistral-embed", 512}, {"codestral-embed", 4096}, {"unknown", 0}, {"", 0}} {
		if _, err := c.Embedder(bad.model, bad.dim); errcode.Of(err) != errcode.ConfigInvalid {
			t.Errorf("Embedder(%q, %d): %v, want CONFIG_INVALID", bad.model, bad.dim, err)
		}
	}
}

func TestEmbedBatchesByCountAndReturnsUnitVectorsInOrder(t *testing.T) {
	f := newFake(t)
	e, _ := f.client(t, Options{}).Embedder("codestral-embed", 0)
	in := inputs(600, func(i int) string { return strings.Repeat("x", i%40+1) })
	vecs, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.BatchSizes()) != 3 {
		t.Fatalf("batches %v, want 3 of at most 256", f.BatchSizes())
	}
	total := 0
	for _, n := range f.BatchSizes() {
		if n > 256 {
			t.Fatalf("batch of %d inputs", n)
		}
		total += n
	}
	if total != 600 || len(vecs) != 600 {
		t.Fatalf("sent %d, got %d vectors", total, len(vecs))
	}
	for i, v := range vecs {
		l := len(in[i].Text)
		if len(v) != 1536 || math.Abs(float64(v[l%1536])-0.6) > 1e-6 || math.Abs(float64(v[(l+1)%1536])-0.8) > 1e-6 {
			t.Fatalf("vector %d is not the normalised vector of its input", i)
		}
	}
	if _, ok := f.Requests()[0].Body["output_dimension"]; ok {
		t.Fatal("output_dimension sent for the default dimension")
	}
}

func TestEmbedRespectsTokenBudget(t *testing.T) {
	f := newFake(t)
	e, _ := f.client(t, Options{}).Embedder("mistral-embed", 0)
	long := strings.Repeat("tokenized words ", 400) // ~800 estimated tokens
	if _, err := e.Embed(context.Background(), inputs(100, func(int) string { return long })); err != nil {
		t.Fatal(err)
	}
	per := chunk.TokensEstimate(long)
	for _, n := range f.BatchSizes() {
		if n*per > EmbedLimits.MaxTokens {
			t.Fatalf("batch of %d inputs carries %d tokens", n, n*per)
		}
	}
	if len(f.BatchSizes()) < 100*per/EmbedLimits.MaxTokens {
		t.Fatalf("%d batches for %d tokens", len(f.BatchSizes()), 100*per)
	}
}

func TestEmbedSplitsWhenTheServerSaysTooManyTokens(t *testing.T) {
	f := newFake(t)
	f.MaxTokens = 3000 // tighter than our estimate-based budget
	e, _ := f.client(t, Options{}).Embedder("mistral-embed", 0)
	long := strings.Repeat("tokenized words ", 400)
	vecs, err := e.Embed(context.Background(), inputs(20, func(int) string { return long }))
	if err != nil || len(vecs) != 20 {
		t.Fatalf("%d vectors, %v", len(vecs), err)
	}
}

func TestEmbedErrors(t *testing.T) {
	f := newFake(t)
	bad := f.client(t, Options{APIKey: config.Secret{Value: "wrong-key-0123456789"}})
	e, _ := bad.Embedder("mistral-embed", 0)
	_, err := e.Embed(context.Background(), inputs(1, func(int) string { return "a" }))
	if ce := errcode.As(err); ce.Code != errcode.MistralAuth || ce.Retryable || strings.Contains(ce.Message, "wrong-key") {
		t.Fatalf("auth: %+v", ce)
	}

	f.Malformed = true
	e, _ = f.client(t, Options{}).Embedder("mistral-embed", 0)
	_, err = e.Embed(context.Background(), inputs(1, func(int) string { return "a" }))
	if ce := errcode.As(err); ce.Code != errcode.MistralFailed || ce.Retryable || !errors.Is(err, provider.ErrMalformed) {
		t.Fatalf("malformed: %+v", ce)
	}
}

func TestEmbedRetries5xxAndRateLimits(t *testing.T) {
	f := newFake(t)
	c := f.client(t, Options{})
	e, _ := c.Embedder("mistral-embed", 0)
	f.FailNext(mistraltest.Any, 2, 503, "")
	if _, err := e.Embed(context.Background(), inputs(3, func(int) string { return "a" })); err != nil {
		t.Fatal(err)
	}
	if f.Total() != 3 {
		t.Fatalf("calls %d, want 3", f.Total())
	}

	f.FailNext(mistraltest.Any, 1, 429, "1")
	start := time.Now()
	if _, err := e.Embed(context.Background(), inputs(3, func(int) string { return "b" })); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < time.Second || c.Stats().Waited < time.Second {
		t.Fatalf("did not honour Retry-After: took %v, waited %v", time.Since(start), c.Stats().Waited)
	}
}

func TestRateLimitPastBudgetIsTyped(t *testing.T) {
	f := newFake(t)
	c := f.client(t, Options{Retry: provider.RetryPolicy{BaseDelay: time.Millisecond, Budget: time.Second}})
	e, _ := c.Embedder("mistral-embed", 0)
	f.FailNext(mistraltest.Any, 100, 429, "30")
	_, err := e.Embed(context.Background(), inputs(1, func(int) string { return "a" }))
	ce := errcode.As(err)
	if ce.Code != errcode.MistralRateLimit || !ce.Retryable || ce.RetryAfterMs != 30000 {
		t.Fatalf("got %+v", ce)
	}
}

func TestEmbedCancellation(t *testing.T) {
	f := newFake(t)
	f.Latency = 200 * time.Millisecond
	e, _ := f.client(t, Options{}).Embedder("mistral-embed", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := e.Embed(ctx, inputs(1, func(int) string { return "a" }))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
}

func TestOCRPDFPagesAreOneBasedAndOrdered(t *testing.T) {
	f := newFake(t)
	eng := f.client(t, Options{}).OCR("")
	pdf := []byte("first page text\nsecond page text\nthird page text")
	res, err := eng.OCR(context.Background(), ocr.Document{Data: pdf, MIME: "application/pdf", Name: "a.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != DefaultOCRModel || len(res.Pages) != 3 || res.Pages[0].Number != 1 || !strings.Contains(res.Pages[2].Markdown, "third page") {
		t.Fatalf("result %+v", res)
	}
	doc := f.Requests()[0].Body["document"].(map[string]any)
	if doc["type"] != "document_url" || !strings.HasPrefix(doc["document_url"].(string), "data:application/pdf;base64,") {
		t.Fatalf("document %v", doc)
	}

	res, err = eng.OCR(context.Background(), ocr.Document{Data: pdf, MIME: "application/pdf", Pages: []int{2}})
	if err != nil || len(res.Pages) != 1 || res.Pages[0].Number != 2 {
		t.Fatalf("page selection: %+v %v", res, err)
	}
	if ps := f.Requests()[1].Body["pages"].([]any); len(ps) != 1 || ps[0].(float64) != 1 {
		t.Fatalf("pages sent %v, want [1] (0-based)", ps)
	}
}

func TestOCRImageUsesImageURL(t *testing.T) {
	f := newFake(t)
	res, err := f.client(t, Options{}).OCR("").OCR(context.Background(), ocr.Document{Data: []byte("Invoice 4711"), MIME: "image/png"})
	if err != nil || len(res.Pages) != 1 || !strings.Contains(res.Pages[0].Markdown, "Invoice 4711") {
		t.Fatalf("%+v %v", res, err)
	}
	if f.Requests()[0].Body["document"].(map[string]any)["type"] != "image_url" {
		t.Fatalf("request %v", f.Requests()[0].Body)
	}
	_, err = f.client(t, Options{}).OCR("").OCR(context.Background(), ocr.Document{Data: []byte("x"), MIME: "text/plain"})
	if errcode.Of(err) != errcode.DocTypeUnsupported {
		t.Fatalf("text/plain: %v", err)
	}
}

func TestAnnotate(t *testing.T) {
	f := newFake(t)
	a := f.client(t, Options{}).Annotator("")
	res, err := a.Annotate(context.Background(), annotation.Request{
		Document: ocr.Document{Data: []byte("Quarterly report\nRevenue grew"), MIME: "application/pdf"},
		Schema:   []byte(`{"type":"object","properties":{"title":{"type":"string"}}}`),
		Name:     "report",
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.JSON) != `{"pages":2,"title":"Quarterly report"}` {
		t.Fatalf("annotation %s", res.JSON)
	}
	af := f.Requests()[0].Body["document_annotation_format"].(map[string]any)
	js := af["json_schema"].(map[string]any)
	if js["name"] != "report" || js["strict"] != true || js["schema"].(map[string]any)["type"] != "object" {
		t.Fatalf("format sent %v", af)
	}
	if _, err := a.Annotate(context.Background(), annotation.Request{Schema: []byte(`[1]`)}); errcode.Of(err) != errcode.InvalidField {
		t.Fatalf("bad schema: %v", err)
	}
}

func TestTranscribeWithSegments(t *testing.T) {
	f := newFake(t)
	tr := f.client(t, Options{}).Transcriber("")
	got, err := tr.Transcribe(context.Background(), transcript.Audio{Data: []byte("RIFF...."), Name: "audio/standup.wav", MIME: "audio/wav", Timestamps: true, Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Timestamps || len(got.Segments) != 2 || got.Segments[1].StartMs != 2100 || got.Segments[1].EndMs != 4500 || got.Segments[0].Text != "Good morning team." {
		t.Fatalf("transcript %+v", got)
	}
	if got.Provider != "mistral" || got.Model != "voxtral-mini-2507" || got.Language != "en" || got.DurationMs != 5000 {
		t.Fatalf("meta %+v", got.Meta())
	}
	form := f.Requests()[0]
	if form.Form["model"][0] != DefaultSTTModel || form.Files["file"][0] != "standup.wav" || form.Form["timestamp_granularities"][0] != "segment" {
		t.Fatalf("form %v", form.Form)
	}
	if _, ok := form.Form["language"]; ok {
		t.Fatal("language sent together with timestamp_granularities")
	}
}

func TestTranscribeWithoutTimestamps(t *testing.T) {
	f := newFake(t)
	got, err := f.client(t, Options{}).Transcriber("").Transcribe(context.Background(), transcript.Audio{Data: []byte("x"), Name: "a.mp3", Language: "fr"})
	if err != nil || got.Timestamps || got.Text == "" || len(got.Segments) != 0 {
		t.Fatalf("%+v %v", got, err)
	}
	if f.Requests()[0].Form["language"][0] != "fr" {
		t.Fatal("language hint not sent")
	}
}

func TestChat(t *testing.T) {
	f := newFake(t)
	got, err := f.client(t, Options{}).Chat(context.Background(), chat.Request{Messages: []chat.Message{{Role: "user", Content: "capital?"}}})
	if err != nil || got.Text != "Paris [doc.md:L1-L2]" || got.PromptTokens == 0 {
		t.Fatalf("%+v %v", got, err)
	}
	if f.Requests()[0].Body["model"] != DefaultChatModel || f.Requests()[0].Body["stream"] != false {
		t.Fatalf("request %v", f.Requests()[0].Body)
	}
}

func ExampleClient_Embedder() {
	c, _ := New(Options{APIKey: config.Secret{Value: "..."}})
	e, _ := c.Embedder(DefaultEmbedCodeModel, 0)
	fmt.Println(e.ID(), e.Dim())
	// Output: mistral/codestral-embed/1536 1536
}
