package embedders

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/embed/local"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider/mistral/mistraltest"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

func mistralKey() config.Secret {
	return config.Secret{Value: mistraltest.Key, Source: "env:MISTRAL_API_KEY"}
}

func TestAutoIsOfflineWithoutKey(t *testing.T) {
	cfg := config.Default()
	if got := Resolve(cfg); got != Offline {
		t.Fatalf("auto without a key resolves to %q, want %q", got, Offline)
	}
	embs, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if embs[record.KindText] != embs[record.KindCode] {
		t.Error("the offline embedder should serve both kinds")
	}
}

// With a Mistral key, auto embeds text with mistral-embed and code with
// codestral-embed, each kind under its own provider/model/dimension ID.
func TestAutoIsMistralWithKey(t *testing.T) {
	fake := mistraltest.New()
	defer fake.Close()
	cfg := config.Default()
	cfg.Mistral.APIKey = mistralKey()
	cfg.Mistral.BaseURL = fake.URL
	if got := Resolve(cfg); got != "mistral" {
		t.Fatalf("auto with a key resolves to %q", got)
	}
	embs, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		id  string
		dim int
	}{
		record.KindText: {"mistral/mistral-embed/1024", 1024},
		record.KindCode: {"mistral/codestral-embed/1536", 1536},
	}
	for kind, w := range want {
		e := embs[kind]
		if e.ID() != w.id || e.Dim() != w.dim {
			t.Errorf("%s: %s (%d-d), want %s (%d-d)", kind, e.ID(), e.Dim(), w.id, w.dim)
		}
		vecs, err := e.Embed(context.Background(), []embed.Input{{Text: "func main() {}", Kind: kind}, {Text: "hello world", Kind: kind}})
		if err != nil {
			t.Fatal(err)
		}
		if len(vecs) != 2 || len(vecs[0]) != w.dim || !unit(vecs[0]) {
			t.Errorf("%s: bad vectors", kind)
		}
	}
	models := map[string]bool{}
	for _, r := range fake.Requests() {
		models[r.Body["model"].(string)] = true
	}
	if !models["mistral-embed"] || !models["codestral-embed"] {
		t.Errorf("models requested: %v", models)
	}
}

func TestMistralWithoutKeyIsConfigInvalid(t *testing.T) {
	cfg := config.Default()
	cfg.Embed.Provider = "mistral"
	_, err := Open(cfg)
	if errcode.Of(err) != errcode.ConfigInvalid || errcode.As(err).Field != "mistral.api_key" {
		t.Fatalf("got %v", err)
	}
}

// fakeOpenAI answers POST /v1/embeddings with vectors of dim dimensions
// and records the models asked for.
func fakeOpenAI(t *testing.T, dim int, models *[]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		*models = append(*models, r.URL.Path+" "+body.Model)
		var out struct {
			Data       []map[string]any `json:"data"`
			Embeddings [][]float32      `json:"embeddings"`
		}
		for i := range body.Input {
			v := make([]float32, dim)
			v[i%dim] = 1
			out.Data = append(out.Data, map[string]any{"index": i, "embedding": v})
			out.Embeddings = append(out.Embeddings, v)
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestOpenAIAndOllamaModelsPerKind(t *testing.T) {
	var seen []string
	srv := fakeOpenAI(t, 8, &seen)
	cfg := config.Default()
	cfg.Embed.Provider = "openai"
	cfg.OpenAI.BaseURL = srv.URL + "/v1"
	cfg.OpenAI.EmbedTextModel, cfg.OpenAI.EmbedCodeModel, cfg.OpenAI.EmbedDim = "my-embed", "my-code-embed", 8
	embs, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if embs[record.KindText].ID() != "openai/my-embed/8" || embs[record.KindCode].ID() != "openai/my-code-embed/8" {
		t.Errorf("ids %s %s", embs[record.KindText].ID(), embs[record.KindCode].ID())
	}
	if _, err := embs[record.KindCode].Embed(context.Background(), []embed.Input{{Text: "x"}}); err != nil {
		t.Fatal(err)
	}

	cfg.Embed.Provider = "ollama"
	cfg.Ollama.BaseURL = srv.URL
	cfg.Ollama.EmbedTextModel, cfg.Ollama.EmbedDim = "custom-embed", 8
	embs, err = Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if embs[record.KindText] != embs[record.KindCode] || embs[record.KindText].ID() != "ollama/custom-embed/8" {
		t.Errorf("ollama: %s", embs[record.KindText].ID())
	}
	if _, err := embs[record.KindText].Embed(context.Background(), []embed.Input{{Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	want := []string{"/v1/embeddings my-code-embed", "/api/embed custom-embed"}
	if len(seen) != 2 || seen[0] != want[0] || seen[1] != want[1] {
		t.Errorf("requests %v, want %v", seen, want)
	}
	// An unknown model needs its dimension configured.
	cfg.Ollama.EmbedDim = 0
	if _, err := Open(cfg); errcode.Of(err) != errcode.ConfigInvalid {
		t.Errorf("unknown dimension: %v", err)
	}
}

func unit(v []float32) bool {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Abs(s-1) < 1e-3
}

// The offline default leans on its hashing part in queries (see
// localHashQueryBoost) while documents keep the blend they were indexed
// with: a query's cosine with a document is the boosted mix of the parts'.
func TestOfflineQueriesBoostHashing(t *testing.T) {
	embs, err := Open(config.Default())
	if err != nil {
		t.Fatal(err)
	}
	e := embs[record.KindCode]
	l := local.New()
	h, _ := hashing.New(localHashDim)
	ctx := context.Background()
	doc := embed.Input{Text: "func ReadFile(name string) ([]byte, error)", Kind: record.KindCode, Path: "os/file.go"}
	query := embed.Input{Text: "read a whole file into memory", Kind: record.KindCode, Query: true}
	dot := func(a, b []float32) (s float64) {
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	vl, _ := l.Embed(ctx, []embed.Input{query, doc})
	vh, _ := h.Embed(ctx, []embed.Input{query, doc})
	ve, err := e.Embed(ctx, []embed.Input{query, doc})
	if err != nil {
		t.Fatal(err)
	}
	wl, wh := 1-localHashWeight, localHashWeight
	b := localHashQueryBoost
	want := (wl*dot(vl[0], vl[1]) + wh*b*dot(vh[0], vh[1])) / math.Sqrt(wl+wh*b*b)
	if got := dot(ve[0], ve[1]); math.Abs(got-want) > 1e-5 {
		t.Fatalf("query–document cosine %v, want %v (hashing boosted %v×)", got, want, b)
	}
	if b == 1 {
		t.Fatal("no query boost: the test would not tell the blends apart")
	}
}
