package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/models"
	"github.com/dir2mcp/dir2mcp/lib/provider/mistral/mistraltest"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeTTS is an ElevenLabs text-to-speech endpoint returning fixed bytes.
type fakeTTS struct {
	srv   *httptest.Server
	mu    sync.Mutex
	texts []string
}

func newFakeTTS(t *testing.T) *fakeTTS {
	f := &fakeTTS{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("xi-api-key") != "el-test-key-0123456789" || !strings.HasPrefix(r.URL.Path, "/v1/text-to-speech/") {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var body struct{ Text string }
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.texts = append(f.texts, body.Text)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "audio/mpeg")
		w.Write([]byte("ID3 fake mp3 audio"))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

type providerFixture struct {
	t    *testing.T
	s    *Server
	cs   *mcp.ClientSession
	fake *mistraltest.Server
	st   *store.Store
}

// newProviderServer indexes the multimodal fixtures with a fake Mistral
// (OCR, transcription, chat, annotations) and serves them.
func newProviderServer(t *testing.T, withKey bool, tts *fakeTTS) *providerFixture {
	t.Helper()
	fake := mistraltest.New()
	t.Cleanup(fake.Close)
	fake.Reply = func(msgs []mistraltest.ChatMessage) string {
		if strings.Contains(msgs[0].Content, "JSON Schema") {
			return "```json\n{\"topic\": \"design\", \"overlap_tokens\": 64}\n```"
		}
		return mistraltest.QuoteFirstSource(msgs)
	}
	root := t.TempDir()
	for _, n := range []string{"digital.pdf", "standup.wav", "docs.zip"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "multimodal", n))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(root, n), b, 0o644)
	}
	os.WriteFile(filepath.Join(root, "notes.md"), []byte("# Design\n\nChunks are 512 tokens with 64 tokens of overlap.\n"), 0o644)
	cfg := config.Default()
	cfg.Embed.Provider = "hash"
	if withKey {
		cfg.Mistral.APIKey = config.Secret{Value: mistraltest.Key, Source: "env:MISTRAL_API_KEY"}
		cfg.Mistral.BaseURL = fake.URL
	}
	if tts != nil {
		cfg.STT.ElevenLabs.APIKey = config.Secret{Value: "el-test-key-0123456789", Source: "env:ELEVENLABS_API_KEY"}
		cfg.STT.ElevenLabs.BaseURL = tts.srv.URL
	}
	ctx := context.Background()
	dir := state.Resolve(root, "")
	dir.Ensure()
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	set, err := models.Open(cfg, dir.Path)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := hashing.New(hashing.DefaultDim)
	embs := map[string]embed.Embedder{record.KindText: h, record.KindCode: h}
	media := &indexer.Media{OCR: set.OCR, OCRLocal: set.OCRLocal, STT: set.STT, Timestamps: true}
	if !withKey {
		media = nil
	}
	job := &indexer.Job{Config: cfg, Root: root, Dir: dir, Store: st, Embedders: embs, Events: events.NewJSON(io.Discard), Media: media}
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	eng := retrieve.Open(st, dir, cfg, embs, 0)
	t.Cleanup(eng.Close)
	eng.WaitLoaded()
	r, _ := rootfs.Open(root)
	ex, _ := exclude.New(cfg.Security.PathExcludes, cfg.Security.SecretPatterns)
	s := &Server{Engine: eng, Store: st, Root: r, Dir: dir, Exclude: ex, Config: cfg, Providers: set}
	return &providerFixture{t: t, s: s, cs: connect(t, s), fake: fake, st: st}
}

// call runs a tool and decodes its structured result into out; it
// returns the error code of a failed call.
func (f *providerFixture) call(name string, args map[string]any, out any) (*mcp.CallToolResult, string) {
	f.t.Helper()
	res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		f.t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		var e toolError
		json.Unmarshal(b, &e)
		return res, e.Error.Code
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			f.t.Fatal(err)
		}
	}
	return res, ""
}

type spanOut struct {
	Kind      string `json:"kind"`
	StartLine int    `json:"start_line"`
	Page      int    `json:"page"`
	StartMs   int64  `json:"start_ms"`
	EndMs     int64  `json:"end_ms"`
}

type askOut struct {
	Answer     string `json:"answer"`
	AnswerKind string `json:"answer_kind"`
	Citations  []struct {
		ChunkID int64   `json:"chunk_id"`
		RelPath string  `json:"rel_path"`
		Span    spanOut `json:"span"`
	} `json:"citations"`
	Hits []struct {
		ChunkID int64   `json:"chunk_id"`
		RelPath string  `json:"rel_path"`
		Span    spanOut `json:"span"`
	} `json:"hits"`
	Transcribed        bool   `json:"transcribed"`
	TranscriptProvider string `json:"transcript_provider"`
	AudioMIMEType      string `json:"audio_mime_type"`
}

// citesRealHits checks that every citation points at one of the hits.
func (a askOut) citesRealHits(t *testing.T) {
	t.Helper()
	ids := map[int64]string{}
	for _, h := range a.Hits {
		ids[h.ChunkID] = h.RelPath
	}
	for _, c := range a.Citations {
		if ids[c.ChunkID] != c.RelPath {
			t.Errorf("citation %+v points at no hit", c)
		}
	}
}

func TestAskGeneratesWithPageAndTimeCitations(t *testing.T) {
	f := newProviderServer(t, true, nil)
	var a askOut
	if _, code := f.call("dir2mcp.ask", map[string]any{"question": "where is the vault code stored?", "doc_types": []string{"pdf"}}, &a); code != "" {
		t.Fatal(code)
	}
	if a.AnswerKind != "generated" || !strings.Contains(a.Answer, "[digital.pdf#p=2]") || len(a.Citations) != 1 || a.Citations[0].Span.Page != 2 {
		t.Fatalf("answer %+v", a)
	}
	a.citesRealHits(t)
	a = askOut{}
	f.call("dir2mcp.ask", map[string]any{"question": "review the quarterly budget", "doc_types": []string{"audio"}}, &a)
	if !strings.Contains(a.Answer, "[standup.wav@t=00:00-00:02]") || len(a.Citations) != 1 || a.Citations[0].Span.Kind != "time" {
		t.Fatalf("audio answer %+v", a)
	}
	a.citesRealHits(t)
	if n := f.fake.Calls(mistraltest.Chat); n != 2 {
		t.Errorf("%d chat calls", n)
	}
}

func TestOpenFilePagesTimesAndMembers(t *testing.T) {
	f := newProviderServer(t, true, nil)
	var o struct {
		Content string   `json:"content"`
		Span    *spanOut `json:"span"`
		DocType string   `json:"doc_type"`
	}
	f.call("dir2mcp.open_file", map[string]any{"rel_path": "digital.pdf", "page": 2}, &o)
	if !strings.Contains(o.Content, "vault code") || o.Span == nil || o.Span.Page != 2 || o.DocType != "pdf" {
		t.Errorf("page 2: %+v", o)
	}
	f.call("dir2mcp.open_file", map[string]any{"rel_path": "digital.pdf"}, &o)
	if !strings.Contains(o.Content, "Invoice 4711") || o.Span.Page != 1 {
		t.Errorf("default page: %+v", o)
	}
	if _, code := f.call("dir2mcp.open_file", map[string]any{"rel_path": "digital.pdf", "page": 9}, nil); code != "INVALID_RANGE" {
		t.Errorf("page 9: %s", code)
	}
	if _, code := f.call("dir2mcp.open_file", map[string]any{"rel_path": "digital.pdf", "start_line": 1}, nil); code != "DOC_TYPE_UNSUPPORTED" {
		t.Errorf("lines of a PDF: %s", code)
	}
	o.Span = nil
	f.call("dir2mcp.open_file", map[string]any{"rel_path": "standup.wav", "start_ms": 1500, "end_ms": 2000}, &o)
	if o.Content != "[00:01-00:02] Review the quarterly budget.\n" || o.Span == nil || o.Span.StartMs != 1200 || o.Span.EndMs != 2400 {
		t.Errorf("time range: %+v %+v", o, o.Span)
	}
	if _, code := f.call("dir2mcp.open_file", map[string]any{"rel_path": "standup.wav", "start_ms": 9000}, nil); code != "INVALID_RANGE" {
		t.Errorf("past the end: %s", code)
	}
	f.call("dir2mcp.open_file", map[string]any{"rel_path": "docs.zip!/docs/runbook.txt", "start_line": 1, "end_line": 1}, &o)
	if !strings.Contains(o.Content, "systemctl restart dir2mcp-ingest") || o.Span.Kind != "lines" {
		t.Errorf("member: %+v", o)
	}
	rr, err := f.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: ResourceURI("docs.zip!/docs/runbook.txt")})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "systemctl restart") {
		t.Errorf("member as a resource: %v", err)
	}
	for rel, want := range map[string]string{"docs.zip": "DOC_TYPE_UNSUPPORTED", "docs.zip!/../../etc/passwd": "INVALID_FIELD",
		"docs.zip!/docs/missing.txt": "FILE_NOT_FOUND", "nope.zip!/a.txt": "FILE_NOT_FOUND"} {
		if _, code := f.call("dir2mcp.open_file", map[string]any{"rel_path": rel}, nil); code != want {
			t.Errorf("%s: %s, want %s", rel, code, want)
		}
	}
}

func TestTranscribeUsesStoredThenRetranscribes(t *testing.T) {
	f := newProviderServer(t, true, nil)
	before := f.fake.Calls(mistraltest.Transcriptions)
	var tr transcribeResult
	f.call("dir2mcp.transcribe", map[string]any{"rel_path": "standup.wav"}, &tr)
	if tr.Transcribed || !tr.Indexed || tr.Provider != "mistral" || len(tr.Segments) != 2 || tr.Segments[1].Text != "Review the quarterly budget." {
		t.Fatalf("stored: %+v", tr)
	}
	if f.fake.Calls(mistraltest.Transcriptions) != before {
		t.Error("a current transcript was transcribed again")
	}
	f.fake.Segments = []mistraltest.Segment{{Text: "Budget approved.", Start: 0, End: 1.5}}
	f.call("dir2mcp.transcribe", map[string]any{"rel_path": "standup.wav", "retranscribe": true}, &tr)
	if !tr.Transcribed || len(tr.Segments) != 1 || f.fake.Calls(mistraltest.Transcriptions) != before+1 {
		t.Fatalf("retranscribe: %+v", tr)
	}
	var o struct{ Content string }
	f.call("dir2mcp.open_file", map[string]any{"rel_path": "standup.wav"}, &o)
	if !strings.Contains(o.Content, "Budget approved.") {
		t.Errorf("stored transcript not replaced: %q", o.Content)
	}
	if _, code := f.call("dir2mcp.transcribe", map[string]any{"rel_path": "notes.md"}, nil); code != "DOC_TYPE_UNSUPPORTED" {
		t.Errorf("transcribe markdown: %s", code)
	}
}

func TestAnnotateStoresAndIndexes(t *testing.T) {
	f := newProviderServer(t, true, nil)
	var a annotateResult
	schema := map[string]any{"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}}
	f.call("dir2mcp.annotate", map[string]any{"rel_path": "digital.pdf", "schema_json": schema}, &a)
	if !a.Stored || !a.FlattenedIndexed || !strings.Contains(string(a.AnnotationJSON), `"pages":3`) || !strings.Contains(a.Preview, "pages: 3") {
		t.Fatalf("pdf: %+v %s", a, a.AnnotationJSON)
	}
	f.call("dir2mcp.annotate", map[string]any{"rel_path": "notes.md", "schema_json": schema}, &a)
	if a.Provider != "mistral" || !strings.Contains(a.Preview, "overlap_tokens: 64") {
		t.Fatalf("markdown via chat: %+v", a)
	}
	d, _, _ := f.st.Document(context.Background(), "notes.md")
	if c, _, ok, _ := f.st.RepContent(context.Background(), d.DocID, record.RepAnnotationText); !ok || !strings.Contains(c, "topic: design") {
		t.Errorf("annotation_text %q", c)
	}
	var s retrieve.Result
	f.call("dir2mcp.search", map[string]any{"query": "overlap_tokens", "path_prefix": "notes.md"}, &s)
	found := false
	for _, h := range s.Hits {
		found = found || h.RepType == record.RepAnnotationText && h.Span.Kind == record.SpanLines
	}
	if !found {
		t.Errorf("flattened annotation not searchable: %+v", s.Hits)
	}
	f.call("dir2mcp.annotate", map[string]any{"rel_path": "notes.md", "schema_json": schema, "index_flattened_text": false}, &a)
	if _, _, ok, _ := f.st.RepContent(context.Background(), d.DocID, record.RepAnnotationText); ok || a.FlattenedIndexed {
		t.Error("index_flattened_text=false left the annotation_text indexed")
	}
}

func TestTranscribeAndAsk(t *testing.T) {
	f := newProviderServer(t, true, nil)
	var a askOut
	f.call("dir2mcp.transcribe_and_ask", map[string]any{"rel_path": "standup.wav", "question": "what will the team do?"}, &a)
	if a.Transcribed || a.TranscriptProvider != "mistral" || !strings.Contains(a.Answer, "[standup.wav@t=00:00-00:02]") || len(a.Citations) != 1 {
		t.Fatalf("%+v", a)
	}
	a.citesRealHits(t)
}

func TestAskAudioSpeaksTheAnswer(t *testing.T) {
	tts := newFakeTTS(t)
	f := newProviderServer(t, true, tts)
	var a askOut
	res, code := f.call("dir2mcp.ask_audio", map[string]any{"question": "where is the vault code stored?"}, &a)
	if code != "" {
		t.Fatal(code)
	}
	var audio *mcp.AudioContent
	for _, c := range res.Content {
		if ac, ok := c.(*mcp.AudioContent); ok {
			audio = ac
		}
	}
	if audio == nil || audio.MIMEType != "audio/mpeg" || string(audio.Data) != "ID3 fake mp3 audio" || a.AudioMIMEType != "audio/mpeg" {
		t.Fatalf("audio content %+v", res.Content)
	}
	b, _ := json.Marshal(audio)
	if !strings.Contains(string(b), base64.StdEncoding.EncodeToString([]byte("ID3 fake mp3 audio"))) {
		t.Errorf("audio item is not base64 on the wire: %s", b)
	}
	if len(tts.texts) != 1 || strings.Contains(tts.texts[0], "[") || !strings.Contains(tts.texts[0], "vault code") {
		t.Errorf("spoken text %q", tts.texts)
	}
}

func TestProviderToolsWithoutProviders(t *testing.T) {
	f := newProviderServer(t, false, nil)
	for name, args := range map[string]map[string]any{
		"dir2mcp.transcribe": {"rel_path": "standup.wav"},
		"dir2mcp.annotate":   {"rel_path": "notes.md", "schema_json": map[string]any{"type": "object"}},
		"dir2mcp.ask_audio":  {"question": "anything"},
	} {
		res, code := f.call(name, args, nil)
		if code != "CONFIG_INVALID" || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "_API_KEY") {
			t.Errorf("%s: %s %v", name, code, res.Content)
		}
	}
	var a askOut
	f.call("dir2mcp.ask", map[string]any{"question": "vault code"}, &a)
	if a.AnswerKind != "extractive" {
		t.Errorf("ask without a chat model: %+v", a)
	}
	if f.fake.Total() != 0 {
		t.Errorf("%d provider calls without a key", f.fake.Total())
	}
}
