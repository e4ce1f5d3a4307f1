package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/chat"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider"
)

type fake struct {
	srv     *httptest.Server
	mu      sync.Mutex
	fail    []int
	raw     string
	batches []int
	bodies  []map[string]any
}

func newFake(t *testing.T) *fake {
	f := &fake{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		if len(f.fail) > 0 {
			s := f.fail[0]
			f.fail = f.fail[1:]
			f.mu.Unlock()
			if s == 429 {
				w.Header().Set("Retry-After", "1")
			}
			w.WriteHeader(s)
			w.Write([]byte(`{"error":"server busy, please try again.  maximum pending requests exceeded"}`))
			return
		}
		raw := f.raw
		f.mu.Unlock()
		if raw != "" {
			w.Write([]byte(raw))
			return
		}
		model, _ := body["model"].(string)
		if !strings.HasPrefix(model, "nomic-embed-text") && !strings.HasPrefix(model, "llama") {
			w.WriteHeader(404)
			w.Write([]byte(`{"error":"model \"` + model + `\" not found, try pulling it first"}`))
			return
		}
		switch r.URL.Path {
		case "/api/embed":
			in := body["input"].([]any)
			f.mu.Lock()
			f.batches = append(f.batches, len(in))
			f.mu.Unlock()
			out := struct {
				Model      string      `json:"model"`
				Embeddings [][]float32 `json:"embeddings"`
			}{Model: model}
			for i := range in {
				v := make([]float32, 768)
				v[i%768] = 0.5
				out.Embeddings = append(out.Embeddings, v)
			}
			json.NewEncoder(w).Encode(out)
		case "/api/chat":
			w.Write([]byte(`{"model":"llama3.2","created_at":"2024-07-22T20:47:51Z","message":{"role":"assistant","content":"Hello!"},"done":true,"done_reason":"stop","prompt_eval_count":26,"eval_count":3}`))
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) client(t *testing.T) *Client {
	c, err := New(Options{BaseURL: f.srv.URL, Retry: provider.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, Budget: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func inputs(n int) []embed.Input {
	in := make([]embed.Input, n)
	for i := range in {
		in[i] = embed.Input{Text: "x"}
	}
	return in
}

func TestEmbed(t *testing.T) {
	f := newFake(t)
	e, err := f.client(t).Embedder("nomic-embed-text:latest", 0)
	if err != nil || e.ID() != "ollama/nomic-embed-text:latest/768" {
		t.Fatalf("%v %v", e, err)
	}
	vecs, err := e.Embed(context.Background(), inputs(130))
	if err != nil || len(vecs) != 130 || vecs[5][5] != 1 {
		t.Fatalf("%d %v", len(vecs), err)
	}
	if len(f.batches) != 3 || f.batches[0] != 64 || f.bodies[0]["truncate"] != true {
		t.Fatalf("batches %v", f.batches)
	}
	if _, err := f.client(t).Embedder("custom", 0); errcode.Of(err) != errcode.ConfigInvalid {
		t.Fatalf("unknown dim: %v", err)
	}
}

func TestEmbedErrors(t *testing.T) {
	f := newFake(t)
	e, _ := f.client(t).Embedder("mxbai-embed-large", 0)
	_, err := e.Embed(context.Background(), inputs(1))
	if ce := errcode.As(err); ce.Code != errcode.EmbedFailed || ce.Retryable || !strings.Contains(ce.Message, "try pulling it first") {
		t.Fatalf("missing model %+v", ce)
	}
	e, _ = f.client(t).Embedder("nomic-embed-text", 0)
	f.fail = []int{503, 500}
	if _, err := e.Embed(context.Background(), inputs(1)); err != nil {
		t.Fatalf("5xx retry: %v", err)
	}
	f.fail = []int{429}
	if _, err := e.Embed(context.Background(), inputs(1)); err != nil || e.Client().Stats().Waited < time.Second {
		t.Fatalf("429: %v, waited %v", err, e.Client().Stats().Waited)
	}
	f.raw = `{"embeddings":[[1,2]]}`
	if _, err := e.Embed(context.Background(), inputs(1)); !errors.Is(err, provider.ErrMalformed) {
		t.Fatalf("wrong dim: %v", err)
	}
	f.raw = `{"embeddings":`
	if _, err := e.Embed(context.Background(), inputs(1)); !errors.Is(err, provider.ErrMalformed) {
		t.Fatalf("bad json: %v", err)
	}
}

func TestChat(t *testing.T) {
	f := newFake(t)
	temp := 0.2
	got, err := f.client(t).Chat(context.Background(), chat.Request{Model: "llama3.2", Temperature: &temp, MaxTokens: 100, Messages: []chat.Message{{Role: "user", Content: "hi"}}})
	if err != nil || got.Text != "Hello!" || got.CompletionTokens != 3 {
		t.Fatalf("%+v %v", got, err)
	}
	b := f.bodies[0]
	if b["stream"] != false || b["options"].(map[string]any)["num_predict"].(float64) != 100 {
		t.Fatalf("body %v", b)
	}
}
