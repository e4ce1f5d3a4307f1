package mistral

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/provider"
)

const fakeKey = "mistral-test-key-abcdef0123456789"

// fakeMistral is an in-process server speaking Mistral's documented wire
// format for the endpoints dir2mcp uses, with Mistral's limits and error
// bodies.
type fakeMistral struct {
	t   testing.TB
	srv *httptest.Server

	maxInputs, maxTokens int // embedding request limits (Mistral: 512, 16384)
	dim                  int
	latency              time.Duration

	// failNext makes the next n requests fail with status (and
	// Retry-After when retryAfter is set).
	mu         sync.Mutex
	failNext   int
	failStatus int
	retryAfter string
	malformed  bool

	calls      atomic.Int64
	batchSizes []int
	requests   []map[string]any // decoded JSON bodies
	forms      []*http.Request  // parsed multipart requests
}

func newFake(t testing.TB) *fakeMistral {
	f := &fakeMistral{t: t, maxInputs: 512, maxTokens: 16384, dim: 1024}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeMistral) client(t testing.TB, o Options) *Client {
	t.Helper()
	o.BaseURL = f.srv.URL
	if !o.APIKey.IsSet() {
		o.APIKey = config.Secret{Value: fakeKey, Source: "env:MISTRAL_API_KEY"}
	}
	if o.Retry == (provider.RetryPolicy{}) {
		o.Retry = provider.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, Budget: 30 * time.Second}
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fakeMistral) fail(n, status int, retryAfter string) {
	f.mu.Lock()
	f.failNext, f.failStatus, f.retryAfter = n, status, retryAfter
	f.mu.Unlock()
}

func mistralError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"object":"error","message":%q,"type":"invalid_request_error","param":null,"code":null}`, msg)
}

func (f *fakeMistral) serve(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	if f.latency > 0 {
		time.Sleep(f.latency)
	}
	if r.Header.Get("Authorization") != "Bearer "+fakeKey {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"message":"Unauthorized","request_id":"abc"}`))
		return
	}
	f.mu.Lock()
	if f.failNext > 0 {
		f.failNext--
		status, ra := f.failStatus, f.retryAfter
		f.mu.Unlock()
		if ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		mistralError(w, status, http.StatusText(status))
		return
	}
	malformed := f.malformed
	f.mu.Unlock()
	if malformed {
		w.Write([]byte(`{"id":"x","data":[{"index":0,"embedding":[0.1,`))
		return
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			mistralError(w, 400, "bad multipart: "+err.Error())
			return
		}
		f.mu.Lock()
		f.forms = append(f.forms, r)
		f.mu.Unlock()
		f.transcribe(w, r)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		mistralError(w, 400, "invalid JSON body")
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, body)
	f.mu.Unlock()
	switch r.URL.Path {
	case "/v1/embeddings":
		f.embeddings(w, body)
	case "/v1/ocr":
		f.ocr(w, body)
	case "/v1/chat/completions":
		w.Write([]byte(`{"id":"c1","object":"chat.completion","model":"mistral-small-2506","choices":[{"index":0,"message":{"role":"assistant","content":"Paris [doc.md:L1-L2]"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":4,"total_tokens":16}}`))
	default:
		mistralError(w, 404, "Not Found")
	}
}

func (f *fakeMistral) embeddings(w http.ResponseWriter, body map[string]any) {
	in, _ := body["input"].([]any)
	if len(in) > f.maxInputs {
		mistralError(w, 400, "Too many inputs in request, split into more batches.")
		return
	}
	tokens := 0
	for _, x := range in {
		s, _ := x.(string)
		tokens += chunk.TokensEstimate(s)
	}
	if tokens > f.maxTokens {
		mistralError(w, 400, fmt.Sprintf("Too many tokens in batch. Max is %d got %d", f.maxTokens, tokens))
		return
	}
	dim := f.dim
	if d, ok := body["output_dimension"].(float64); ok {
		dim = int(d)
	}
	f.mu.Lock()
	f.batchSizes = append(f.batchSizes, len(in))
	f.mu.Unlock()
	type item struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	out := struct {
		ID    string `json:"id"`
		Model any    `json:"model"`
		Data  []item `json:"data"`
	}{ID: "e1", Model: body["model"]}
	// Reply in reverse order: clients must order by index.
	for i := len(in) - 1; i >= 0; i-- {
		v := make([]float32, dim)
		s, _ := in[i].(string)
		v[len(s)%dim] = 3 // not normalised on purpose
		v[(len(s)+1)%dim] = 4
		out.Data = append(out.Data, item{"embedding", v, i})
	}
	json.NewEncoder(w).Encode(out)
}

func (f *fakeMistral) ocr(w http.ResponseWriter, body map[string]any) {
	doc, _ := body["document"].(map[string]any)
	var uri string
	switch doc["type"] {
	case "document_url":
		uri, _ = doc["document_url"].(string)
	case "image_url":
		uri, _ = doc["image_url"].(string)
	default:
		mistralError(w, 422, "document.type must be document_url or image_url")
		return
	}
	_, b64, ok := strings.Cut(uri, ";base64,")
	data, err := base64.StdEncoding.DecodeString(b64)
	if !ok || err != nil {
		mistralError(w, 422, "document url is not a base64 data URI")
		return
	}
	// The fake "recognises" one page per line of the document.
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	want := map[int]bool{}
	if ps, ok := body["pages"].([]any); ok {
		for _, p := range ps {
			want[int(p.(float64))] = true
		}
	}
	type page struct {
		Index      int            `json:"index"`
		Markdown   string         `json:"markdown"`
		Images     []any          `json:"images"`
		Dimensions map[string]int `json:"dimensions"`
	}
	out := struct {
		Pages              []page         `json:"pages"`
		Model              any            `json:"model"`
		DocumentAnnotation *string        `json:"document_annotation,omitempty"`
		UsageInfo          map[string]int `json:"usage_info"`
	}{Model: body["model"]}
	for i := len(lines) - 1; i >= 0; i-- {
		if len(want) > 0 && !want[i] {
			continue
		}
		out.Pages = append(out.Pages, page{i, "# Page " + fmt.Sprint(i+1) + "\n\n" + lines[i], []any{}, map[string]int{"dpi": 200, "height": 2200, "width": 1700}})
	}
	if af, ok := body["document_annotation_format"].(map[string]any); ok {
		js, _ := af["json_schema"].(map[string]any)
		if af["type"] != "json_schema" || js == nil || js["schema"] == nil || js["name"] == nil {
			mistralError(w, 422, "document_annotation_format must be {type: json_schema, json_schema: {name, schema}}")
			return
		}
		a := fmt.Sprintf(`{"title": %q, "pages": %d}`, lines[0], len(lines))
		out.DocumentAnnotation = &a
	}
	out.UsageInfo = map[string]int{"pages_processed": len(out.Pages)}
	json.NewEncoder(w).Encode(out)
}

func (f *fakeMistral) transcribe(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/audio/transcriptions" {
		mistralError(w, 404, "Not Found")
		return
	}
	if r.FormValue("model") == "" || r.MultipartForm.File["file"] == nil {
		mistralError(w, 422, "model and file are required")
		return
	}
	resp := `{"model":"voxtral-mini-2507","text":"Good morning team. Today we finish the indexer.","language":"en","segments":[`
	if g := r.MultipartForm.Value["timestamp_granularities"]; len(g) == 1 && g[0] == "segment" {
		resp += `{"text":" Good morning team.","start":0.0,"end":1.84,"type":"transcription_segment"},{"text":" Today we finish the indexer.","start":2.1,"end":4.5,"type":"transcription_segment"}`
	}
	resp += `],"usage":{"prompt_audio_seconds":5,"prompt_tokens":4,"total_tokens":60,"completion_tokens":12}}`
	w.Write([]byte(resp))
}
