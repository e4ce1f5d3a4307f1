// Package mistraltest is an in-process fake of the Mistral API: it speaks
// the documented wire format of the endpoints dir2mcp uses (embeddings,
// OCR with document annotations, transcription, chat completions) with
// Mistral's limits and error bodies, counts the calls per endpoint, and
// can fail, throttle (429 with Retry-After), slow down or reply malformed
// JSON on demand. Embeddings are hashed bags of words (lib/embed/hashing)
// by default, so similar texts get similar vectors and semantic search
// behaves plausibly; they come back in reverse index order, which the
// format allows and clients must handle.
package mistraltest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/pdf"
)

// Key is the API key the fake accepts unless Server.Key is changed.
const Key = "mistraltest-key-0123456789abcdef"

// Endpoints, as counted by Calls.
const (
	Embeddings     = "/v1/embeddings"
	OCR            = "/v1/ocr"
	Transcriptions = "/v1/audio/transcriptions"
	Chat           = "/v1/chat/completions"
)

// Segment is a transcription segment, times in seconds.
type Segment struct {
	Text       string
	Start, End float64
}

// ChatMessage is a message of a chat request.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Server is a fake Mistral API. Set its fields before the first request.
type Server struct {
	// URL is the base URL to configure clients with.
	URL string
	// Key is the accepted API key (default Key); others get 401.
	Key string
	// Latency delays every reply.
	Latency time.Duration
	// MaxInputs and MaxTokens are the embedding request limits (Mistral:
	// 512 inputs, 16384 tokens as lib/chunk estimates them).
	MaxInputs, MaxTokens int
	// Vector is the embedding of text (default: a hashed bag of words, L2
	// normalised).
	Vector func(text string, dim int) []float32
	// Malformed makes every reply a truncated JSON body.
	Malformed bool
	// AudioSeconds is reported as the transcription's
	// usage.prompt_audio_seconds when positive.
	AudioSeconds float64
	// OCRPages returns the markdown of every page of a document (page 1
	// first). The default reads a PDF's text layer and recognises nothing
	// in images.
	OCRPages func(data []byte, mime string) []string
	// Segments is the transcript of every audio file; nil means two
	// segments of a stand-up meeting.
	Segments []Segment
	// Language is reported with transcripts (default "en").
	Language string
	// Reply answers a chat request. The default quotes the first
	// bracketed citation line of the last user message and its text.
	Reply func(messages []ChatMessage) string
	// Annotation answers a document annotation request with a JSON object
	// (default: {"title": <first line of page 1>, "pages": N}).
	Annotation func(pages []string) string

	srv     *httptest.Server
	mu      sync.Mutex
	fails   map[string][]failure
	calls   map[string]*atomic.Int64
	total   atomic.Int64
	reqs    []Request
	batches []int
}

// Request is a request the fake received (JSON body decoded, or the form
// values and file names of a multipart upload).
type Request struct {
	Path  string
	Body  map[string]any
	Form  map[string][]string
	Files map[string][]string
}

type failure struct {
	status     int
	retryAfter string
}

// New starts a fake; Close stops it.
func New() *Server {
	s := &Server{Key: Key, MaxInputs: 512, MaxTokens: 16384, fails: map[string][]failure{}, calls: map[string]*atomic.Int64{}}
	for _, p := range []string{Embeddings, OCR, Transcriptions, Chat} {
		s.calls[p] = &atomic.Int64{}
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Calls returns the requests received on endpoint, failed ones included.
func (s *Server) Calls(endpoint string) int64 {
	if c := s.calls[endpoint]; c != nil {
		return c.Load()
	}
	return 0
}

// Total returns every request received.
func (s *Server) Total() int64 { return s.total.Load() }

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// BatchSizes returns the number of inputs of each embeddings request
// that was answered.
func (s *Server) BatchSizes() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.batches...)
}

// Any makes FailNext apply to every endpoint.
const Any = "*"

// FailNext makes the next n requests to endpoint (or Any) fail with
// status, with a Retry-After header when retryAfter is not empty.
func (s *Server) FailNext(endpoint string, n, status int, retryAfter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.fails[endpoint] = append(s.fails[endpoint], failure{status, retryAfter})
	}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"object":"error","message":%q,"type":"invalid_request_error","param":null,"code":null}`, msg)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.total.Add(1)
	if c := s.calls[r.URL.Path]; c != nil {
		c.Add(1)
	}
	if s.Latency > 0 {
		time.Sleep(s.Latency)
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Key {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"message":"Unauthorized","request_id":"fake"}`))
		return
	}
	s.mu.Lock()
	key := r.URL.Path
	if len(s.fails[key]) == 0 {
		key = Any
	}
	if f := s.fails[key]; len(f) > 0 {
		s.fails[key] = f[1:]
		s.mu.Unlock()
		if f[0].retryAfter != "" {
			w.Header().Set("Retry-After", f[0].retryAfter)
		}
		writeError(w, f[0].status, http.StatusText(f[0].status))
		return
	}
	s.mu.Unlock()
	if s.Malformed {
		w.Write([]byte(`{"id":"x","data":[{"index":0,"embedding":[0.1,`))
		return
	}
	if r.URL.Path == Transcriptions {
		s.transcribe(w, r)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body")
		return
	}
	s.record(Request{Path: r.URL.Path, Body: body})
	switch r.URL.Path {
	case Embeddings:
		s.embeddings(w, body)
	case OCR:
		s.ocr(w, body)
	case Chat:
		s.chat(w, body)
	default:
		writeError(w, http.StatusNotFound, "Not Found")
	}
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
}

// embedDims are the default dimensions of Mistral's embedding models.
var embedDims = map[string]int{"mistral-embed": 1024, "codestral-embed": 1536}

func (s *Server) embeddings(w http.ResponseWriter, body map[string]any) {
	model, _ := body["model"].(string)
	dim, ok := embedDims[model]
	if d, has := body["output_dimension"].(float64); has {
		dim, ok = int(d), true
	}
	if !ok {
		writeError(w, http.StatusBadRequest, "Invalid model: "+model)
		return
	}
	raw, _ := body["input"].([]any)
	if len(raw) == 0 || len(raw) > s.MaxInputs {
		writeError(w, http.StatusBadRequest, "Too many inputs in request, split into more batches.")
		return
	}
	texts := make([]string, len(raw))
	tokens := 0
	for i, x := range raw {
		texts[i], _ = x.(string)
		tokens += chunk.TokensEstimate(texts[i])
	}
	if tokens > s.MaxTokens {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Too many tokens in batch. Max is %d got %d", s.MaxTokens, tokens))
		return
	}
	s.mu.Lock()
	s.batches = append(s.batches, len(texts))
	s.mu.Unlock()
	type item struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	out := struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Data  []item `json:"data"`
	}{ID: "emb-fake", Model: model}
	vector := s.Vector
	if vector == nil {
		vector = hashed
	}
	for i := len(texts) - 1; i >= 0; i-- { // reverse order: clients must order by index
		out.Data = append(out.Data, item{"embedding", vector(texts[i], dim), i})
	}
	json.NewEncoder(w).Encode(out)
}

// hashed is the default embedding: a hashed bag of words, or any unit
// vector for text without words.
func hashed(text string, dim int) []float32 {
	h, err := hashing.New(max(dim, 8))
	if err != nil {
		return make([]float32, dim)
	}
	vecs, _ := h.Embed(context.Background(), []embed.Input{{Text: text, Kind: "text"}})
	v := vecs[0][:dim]
	if allZero(v) {
		v[0] = 1
	}
	return v
}

func allZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func (s *Server) ocr(w http.ResponseWriter, body map[string]any) {
	doc, _ := body["document"].(map[string]any)
	var uri string
	switch doc["type"] {
	case "document_url":
		uri, _ = doc["document_url"].(string)
	case "image_url":
		uri, _ = doc["image_url"].(string)
	default:
		writeError(w, http.StatusUnprocessableEntity, "document.type must be document_url or image_url")
		return
	}
	head, b64, ok := strings.Cut(uri, ";base64,")
	data, err := base64.StdEncoding.DecodeString(b64)
	if !ok || err != nil {
		writeError(w, http.StatusUnprocessableEntity, "document url is not a base64 data URI")
		return
	}
	mime := strings.TrimPrefix(head, "data:")
	pages := s.pages(data, mime)
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
	}{Model: body["model"], Pages: []page{}}
	for i, md := range pages {
		if len(want) > 0 && !want[i] {
			continue
		}
		out.Pages = append(out.Pages, page{i, md, []any{}, map[string]int{"dpi": 200, "height": 2200, "width": 1700}})
	}
	if af, ok := body["document_annotation_format"].(map[string]any); ok {
		js, _ := af["json_schema"].(map[string]any)
		if af["type"] != "json_schema" || js == nil || js["schema"] == nil || js["name"] == nil {
			writeError(w, http.StatusUnprocessableEntity, "document_annotation_format must be {type: json_schema, json_schema: {name, schema}}")
			return
		}
		a := s.annotation(pages)
		out.DocumentAnnotation = &a
	}
	out.UsageInfo = map[string]int{"pages_processed": len(out.Pages)}
	json.NewEncoder(w).Encode(out)
}

func (s *Server) pages(data []byte, mime string) []string {
	if s.OCRPages != nil {
		return s.OCRPages(data, mime)
	}
	return TextLayer(data, mime)
}

// TextLayer is the default OCR: the text layer of each page of a PDF
// (lib/pdf), and nothing for an image.
func TextLayer(data []byte, mime string) []string {
	if mime != "application/pdf" {
		return []string{""}
	}
	d, err := pdf.Extract(bytes.NewReader(data), int64(len(data)), pdf.Options{})
	if err != nil {
		return nil
	}
	out := make([]string, len(d.Pages))
	for i, p := range d.Pages {
		out[i] = p.Text
	}
	return out
}

func (s *Server) annotation(pages []string) string {
	if s.Annotation != nil {
		return s.Annotation(pages)
	}
	title := ""
	if len(pages) > 0 {
		title, _, _ = strings.Cut(strings.TrimSpace(pages[0]), "\n")
	}
	b, _ := json.Marshal(map[string]any{"title": title, "pages": len(pages)})
	return string(b)
}

func (s *Server) transcribe(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		writeError(w, http.StatusBadRequest, "bad multipart body: "+err.Error())
		return
	}
	files := map[string][]string{}
	for field, fhs := range r.MultipartForm.File {
		for _, fh := range fhs {
			files[field] = append(files[field], fh.Filename)
		}
	}
	s.record(Request{Path: r.URL.Path, Form: r.MultipartForm.Value, Files: files})
	if r.FormValue("model") == "" || r.MultipartForm.File["file"] == nil {
		writeError(w, http.StatusUnprocessableEntity, "model and file are required")
		return
	}
	segs := s.Segments
	if segs == nil {
		segs = []Segment{{"Good morning team.", 0, 1.2}, {"Review the quarterly budget.", 1.2, 2.4}}
	}
	lang := s.Language
	if lang == "" {
		lang = "en"
	}
	type seg struct {
		Text  string  `json:"text"`
		Start float64 `json:"start"`
		End   float64 `json:"end"`
		Type  string  `json:"type"`
	}
	out := struct {
		Model    string             `json:"model"`
		Text     string             `json:"text"`
		Language string             `json:"language"`
		Segments []seg              `json:"segments"`
		Usage    map[string]float64 `json:"usage,omitempty"`
	}{Model: "voxtral-mini-2507", Language: lang, Segments: []seg{}}
	if s.AudioSeconds > 0 {
		out.Usage = map[string]float64{"prompt_audio_seconds": s.AudioSeconds}
	}
	var text []string
	timed := false
	for _, g := range r.MultipartForm.Value["timestamp_granularities"] {
		timed = timed || g == "segment"
	}
	for _, g := range segs {
		text = append(text, g.Text)
		if timed {
			out.Segments = append(out.Segments, seg{" " + g.Text, g.Start, g.End, "transcription_segment"})
		}
	}
	out.Text = strings.Join(text, " ")
	json.NewEncoder(w).Encode(out)
}

func (s *Server) chat(w http.ResponseWriter, body map[string]any) {
	raw, _ := json.Marshal(body["messages"])
	var msgs []ChatMessage
	json.Unmarshal(raw, &msgs)
	reply := s.Reply
	if reply == nil {
		reply = QuoteFirstSource
	}
	type choice struct {
		Index   int         `json:"index"`
		Message ChatMessage `json:"message"`
		Finish  string      `json:"finish_reason"`
	}
	out := struct {
		ID      string         `json:"id"`
		Object  string         `json:"object"`
		Model   any            `json:"model"`
		Choices []choice       `json:"choices"`
		Usage   map[string]int `json:"usage"`
	}{ID: "chat-fake", Object: "chat.completion", Model: body["model"],
		Choices: []choice{{0, ChatMessage{"assistant", reply(msgs)}, "stop"}},
		Usage:   map[string]int{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}
	json.NewEncoder(w).Encode(out)
}

// QuoteFirstSource is the default chat reply: the text under the first
// line of the last user message that is a bracketed citation (such as
// "[a.pdf#p=2]"), up to the next blank or citation line, on one line and
// followed by that citation; or "I don't know." when the message has none.
func QuoteFirstSource(msgs []ChatMessage) string {
	var user string
	for _, m := range msgs {
		if m.Role == "user" {
			user = m.Content
		}
	}
	isCite := func(l string) bool { return strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") }
	lines := strings.Split(user, "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if !isCite(l) {
			continue
		}
		var text []string
		for _, t := range lines[i+1:] {
			t = strings.TrimSpace(t)
			if t == "" || isCite(t) {
				break
			}
			text = append(text, t)
		}
		quote := strings.Join(text, " ")
		if len(quote) > 300 {
			quote = quote[:300]
		}
		return "According to the source, " + quote + " " + l
	}
	return "I don't know."
}
