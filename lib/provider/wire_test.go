package provider

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/chat"
)

func TestFormRepeatsFieldsAndCarriesFile(t *testing.T) {
	f := NewForm()
	f.Field("model", "voxtral-mini-latest")
	f.Field("timestamp_granularities", "segment")
	f.Field("timestamp_granularities", "word")
	f.File("file", `a"b.wav`, "audio/wav", []byte("RIFF"))
	body, ctype, err := f.Finish()
	if err != nil {
		t.Fatal(err)
	}
	_, params, _ := mime.ParseMediaType(ctype)
	form, err := multipart.NewReader(strings.NewReader(string(body)), params["boundary"]).ReadForm(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if got := form.Value["timestamp_granularities"]; len(got) != 2 || got[1] != "word" {
		t.Fatalf("granularities %v", got)
	}
	fh := form.File["file"][0]
	r, _ := fh.Open()
	data, _ := io.ReadAll(r)
	if fh.Filename != `a"b.wav` || string(data) != "RIFF" || fh.Header.Get("Content-Type") != "audio/wav" {
		t.Fatalf("file %q %q %q", fh.Filename, data, fh.Header.Get("Content-Type"))
	}
}

func TestPostEmbeddingsOrdersByIndex(t *testing.T) {
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req EmbeddingsRequest
		json.NewDecoder(r.Body).Decode(&req)
		if req.Model != "m" || len(req.Input) != 2 || req.OutputDimension != 8 {
			t.Errorf("request %+v", req)
		}
		w.Write([]byte(`{"data":[{"index":1,"embedding":[2]},{"index":0,"embedding":[1]}]}`))
	}), nil)
	v, err := c.PostEmbeddings(context.Background(), "/v1/embeddings", "", EmbeddingsRequest{Model: "m", Input: []string{"a", "b"}, OutputDimension: 8})
	if err != nil || v[0][0] != 1 || v[1][0] != 2 {
		t.Fatalf("%v %v", v, err)
	}
}

func TestPostEmbeddingsRejectsBadShapes(t *testing.T) {
	for _, body := range []string{
		`{"data":[{"index":0,"embedding":[1]}]}`,
		`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`,
		`{"data":[{"index":0,"embedding":[1]},{"index":5,"embedding":[2]}]}`,
		`{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[2]}]}`,
		`{"data":"nope"}`,
	} {
		c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) }), nil)
		_, err := c.PostEmbeddings(context.Background(), "/", "", EmbeddingsRequest{Model: "m", Input: []string{"a", "b"}})
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: got %v", body, err)
		}
	}
}

func TestChatContentStringOrChunks(t *testing.T) {
	for body, want := range map[string]string{
		`{"model":"m","choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`: "hi",
		`{"choices":[{"message":{"content":[{"type":"thinking","thinking":[]},{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}`:                    "ab",
	} {
		c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) }), nil)
		got, err := c.PostChatCompletions(context.Background(), "/", "", chat.Request{Model: "m", Messages: []chat.Message{{Role: "user", Content: "q"}}})
		if err != nil || got.Text != want {
			t.Fatalf("%s: %+v %v", body, got, err)
		}
	}
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"choices":[]}`)) }), nil)
	if _, err := c.PostChatCompletions(context.Background(), "/", "", chat.Request{Model: "m"}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("no choices: %v", err)
	}
}
