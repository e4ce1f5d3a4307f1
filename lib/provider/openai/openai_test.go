package openai

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
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider"
)

const key = "sk-openai-test-0123456789"

type fake struct {
	srv     *httptest.Server
	mu      sync.Mutex
	fail    []int
	raw     string // reply with this body instead
	batches []int
	bodies  []map[string]any
	hold    chan struct{}
}

func newFake(t *testing.T) *fake {
	f := &fake{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(401)
			w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
			return
		}
		f.mu.Lock()
		hold := f.hold
		if len(f.fail) > 0 {
			s := f.fail[0]
			f.fail = f.fail[1:]
			f.mu.Unlock()
			if s == 429 {
				w.Header().Set("retry-after-ms", "120")
			}
			w.WriteHeader(s)
			w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests"}}`))
			return
		}
		raw := f.raw
		f.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		if raw != "" {
			w.Write([]byte(raw))
			return
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		switch r.URL.Path {
		case "/v1/embeddings":
			in := body["input"].([]any)
			dim := 1536
			if d, ok := body["dimensions"].(float64); ok {
				dim = int(d)
			}
			f.mu.Lock()
			f.batches = append(f.batches, len(in))
			f.mu.Unlock()
			type item struct {
				Object    string    `json:"object"`
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			}
			out := struct {
				Object string `json:"object"`
				Data   []item `json:"data"`
			}{Object: "list"}
			for i := range in {
				v := make([]float32, dim)
				v[i%dim] = 2
				out.Data = append(out.Data, item{"embedding", i, v})
			}
			json.NewEncoder(w).Encode(out)
		case "/v1/chat/completions":
			w.Write([]byte(`{"id":"x","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"42"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":1}}`))
		default:
			w.WriteHeader(404)
			w.Write([]byte(`{"error":{"message":"Unknown request URL"}}`))
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) client(t *testing.T, k string, timeout time.Duration) *Client {
	c, err := New(Options{BaseURL: f.srv.URL + "/v1/", APIKey: config.Secret{Value: k}, Timeout: timeout,
		Retry: provider.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, Budget: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func texts(n int) []embed.Input {
	in := make([]embed.Input, n)
	for i := range in {
		in[i] = embed.Input{Text: "chunk text"}
	}
	return in
}

func TestEmbedBatchesAndNormalises(t *testing.T) {
	f := newFake(t)
	e, err := f.client(t, key, 0).Embedder("text-embedding-3-small", 512)
	if err != nil || e.ID() != "openai/text-embedding-3-small/512" {
		t.Fatalf("%v %v", e, err)
	}
	vecs, err := e.Embed(context.Background(), texts(1100))
	if err != nil || len(vecs) != 1100 || vecs[3][3] != 1 {
		t.Fatalf("%d vecs, %v", len(vecs), err)
	}
	if len(f.batches) != 3 || f.batches[0] > EmbedLimits.MaxInputs {
		t.Fatalf("batches %v", f.batches)
	}
	if f.bodies[0]["dimensions"].(float64) != 512 || f.bodies[0]["encoding_format"] != "float" {
		t.Fatalf("body %v", f.bodies[0]["dimensions"])
	}
	if _, err := f.client(t, key, 0).Embedder("text-embedding-ada-002", 512); errcode.Of(err) != errcode.ConfigInvalid {
		t.Fatalf("ada with dimensions: %v", err)
	}
}

func TestEmbedErrorsUseGenericCodes(t *testing.T) {
	f := newFake(t)
	e, _ := f.client(t, "sk-wrong-0123456789", 0).Embedder("text-embedding-3-small", 0)
	_, err := e.Embed(context.Background(), texts(1))
	if ce := errcode.As(err); ce.Code != errcode.ConfigInvalid || ce.Retryable || !strings.Contains(ce.Message, "Incorrect API key") {
		t.Fatalf("auth %+v", ce)
	}
	e, _ = f.client(t, key, 0).Embedder("text-embedding-3-small", 0)
	f.fail = []int{429, 500}
	if _, err := e.Embed(context.Background(), texts(2)); err != nil {
		t.Fatalf("429 then 500 then ok: %v", err)
	}
	if w := e.Client().Stats().Waited; w < 120*time.Millisecond {
		t.Fatalf("waited %v, want the 120 ms retry-after-ms", w)
	}
	f.fail = []int{429, 429, 429}
	_, err = e.Embed(context.Background(), texts(2))
	if ce := errcode.As(err); ce.Code != errcode.RateLimited || !ce.Retryable {
		t.Fatalf("persistent 429 %+v", ce)
	}
	f.raw = `not json`
	_, err = e.Embed(context.Background(), texts(2))
	if ce := errcode.As(err); ce.Code != errcode.EmbedFailed || !errors.Is(err, provider.ErrMalformed) {
		t.Fatalf("malformed %+v", ce)
	}
}

func TestEmbedTimeout(t *testing.T) {
	f := newFake(t)
	f.hold = make(chan struct{})
	defer close(f.hold)
	e, _ := f.client(t, key, 30*time.Millisecond).Embedder("text-embedding-3-small", 0)
	_, err := e.Embed(context.Background(), texts(1))
	if ce := errcode.As(err); ce.Code != errcode.EmbedFailed || !ce.Retryable || !strings.Contains(ce.Message, "no response within") {
		t.Fatalf("timeout %+v", ce)
	}
}

func TestChat(t *testing.T) {
	f := newFake(t)
	got, err := f.client(t, key, 0).Chat(context.Background(), chat.Request{Model: "gpt-4o-mini", Messages: []chat.Message{{Role: "user", Content: "q"}}})
	if err != nil || got.Text != "42" {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := f.client(t, key, 0).Chat(context.Background(), chat.Request{}); errcode.Of(err) != errcode.ConfigInvalid {
		t.Fatalf("no model: %v", err)
	}
}
