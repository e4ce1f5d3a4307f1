package elevenlabs

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

const fakeKey = "xi-test-key-0123456789abcdef"

// sttReply is a Scribe reply with word timings, spacing items and two
// speakers, as SpeechToTextChunkResponseModel documents.
const sttReply = `{"language_code":"eng","language_probability":0.98,"text":"Good morning team. Hi.","words":[
{"text":"Good","start":0.0,"end":0.4,"type":"word","speaker_id":"speaker_0","logprob":-0.1},
{"text":" ","start":0.4,"end":0.45,"type":"spacing","speaker_id":"speaker_0"},
{"text":"morning","start":0.45,"end":0.9,"type":"word","speaker_id":"speaker_0"},
{"text":" ","start":0.9,"end":0.95,"type":"spacing","speaker_id":"speaker_0"},
{"text":"team.","start":0.95,"end":1.5,"type":"word","speaker_id":"speaker_0"},
{"text":" ","start":1.5,"end":1.6,"type":"spacing","speaker_id":"speaker_1"},
{"text":"Hi.","start":1.6,"end":2.0,"type":"word","speaker_id":"speaker_1"}]}`

type fake struct {
	srv      *httptest.Server
	mu       sync.Mutex
	fail     []int // statuses to answer with before succeeding
	reply    string
	requests []*http.Request
	bodies   []string
}

func newFake(t *testing.T) *fake {
	f := &fake{reply: sttReply}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("xi-api-key") != fakeKey {
			w.WriteHeader(401)
			w.Write([]byte(`{"detail":{"status":"invalid_api_key","message":"Invalid API key"}}`))
			return
		}
		f.mu.Lock()
		if len(f.fail) > 0 {
			status := f.fail[0]
			f.fail = f.fail[1:]
			f.mu.Unlock()
			if status == 429 {
				w.Header().Set("Retry-After", "1")
			}
			w.WriteHeader(status)
			w.Write([]byte(`{"detail":{"status":"too_many_concurrent_requests","message":"Too many concurrent requests"}}`))
			return
		}
		f.mu.Unlock()
		switch {
		case r.URL.Path == "/v1/speech-to-text":
			if err := r.ParseMultipartForm(1 << 20); err != nil || r.FormValue("model_id") == "" || r.MultipartForm.File["file"] == nil {
				w.WriteHeader(422)
				w.Write([]byte(`{"detail":[{"loc":["body","model_id"],"msg":"field required"}]}`))
				return
			}
			f.mu.Lock()
			f.requests = append(f.requests, r)
			f.mu.Unlock()
			w.Write([]byte(f.reply))
		case strings.HasPrefix(r.URL.Path, "/v1/text-to-speech/"):
			b, _ := io.ReadAll(r.Body)
			f.mu.Lock()
			f.requests = append(f.requests, r)
			f.bodies = append(f.bodies, string(b))
			f.mu.Unlock()
			w.Header().Set("Content-Type", "audio/mpeg")
			w.Write([]byte("ID3\x04fake-mp3-frames"))
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) client(t *testing.T, key string) *Client {
	c, err := New(Options{BaseURL: f.srv.URL, APIKey: config.Secret{Value: key},
		Retry: provider.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, Budget: 20 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTranscribeNormalisesWords(t *testing.T) {
	f := newFake(t)
	tr := f.client(t, fakeKey).Transcriber("scribe")
	got, err := tr.Transcribe(context.Background(), transcript.Audio{Data: []byte("RIFF"), Name: "x/standup.wav", Timestamps: true, Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Model() != DefaultSTTModel || got.Provider != "elevenlabs" || got.Language != "eng" || !got.Timestamps {
		t.Fatalf("meta %+v", got.Meta())
	}
	want := []transcript.Segment{
		{StartMs: 0, EndMs: 1500, Text: "Good morning team.", Speaker: "speaker_0"},
		{StartMs: 1600, EndMs: 2000, Text: "Hi.", Speaker: "speaker_1"},
	}
	if len(got.Segments) != 2 || got.Segments[0] != want[0] || got.Segments[1] != want[1] {
		t.Fatalf("segments %+v", got.Segments)
	}
	r := f.requests[0]
	if r.FormValue("model_id") != "scribe_v1" || r.FormValue("timestamps_granularity") != "word" || r.FormValue("language_code") != "en" || r.MultipartForm.File["file"][0].Filename != "standup.wav" {
		t.Fatalf("form %v", r.MultipartForm.Value)
	}
}

func TestTranscribeErrors(t *testing.T) {
	f := newFake(t)
	_, err := f.client(t, "wrong-key-0123456789").Transcriber("").Transcribe(context.Background(), transcript.Audio{Data: []byte("x")})
	if e := errcode.As(err); e.Code != errcode.ElevenLabsAuth || e.Retryable || !strings.Contains(e.Message, "Invalid API key") {
		t.Fatalf("auth: %+v", e)
	}
	f.reply = `{"text": 5}`
	_, err = f.client(t, fakeKey).Transcriber("").Transcribe(context.Background(), transcript.Audio{Data: []byte("x")})
	if e := errcode.As(err); e.Code != errcode.ElevenLabsFailed || !errors.Is(err, provider.ErrMalformed) {
		t.Fatalf("malformed: %+v", e)
	}
	f.reply = sttReply
	f.fail = []int{500, 502}
	c := f.client(t, fakeKey)
	if _, err := c.Transcriber("").Transcribe(context.Background(), transcript.Audio{Data: []byte("x")}); err != nil || c.Stats().Calls != 3 {
		t.Fatalf("5xx retry: %v after %d calls", err, c.Stats().Calls)
	}
	f.fail = []int{429}
	c = f.client(t, fakeKey)
	if _, err := c.Transcriber("").Transcribe(context.Background(), transcript.Audio{Data: []byte("x")}); err != nil || c.Stats().Waited < time.Second {
		t.Fatalf("429: %v, waited %v", err, c.Stats().Waited)
	}
}

func TestTranscribeRateLimitPastBudget(t *testing.T) {
	f := newFake(t)
	f.fail = []int{429, 429, 429}
	c, _ := New(Options{BaseURL: f.srv.URL, APIKey: config.Secret{Value: fakeKey}, Retry: provider.RetryPolicy{Budget: 500 * time.Millisecond}})
	_, err := c.Transcriber("").Transcribe(context.Background(), transcript.Audio{Data: []byte("x")})
	if e := errcode.As(err); e.Code != errcode.ElevenLabsRateLimit || !e.Retryable || e.RetryAfterMs != 1000 {
		t.Fatalf("got %+v", e)
	}
}

func TestSpeak(t *testing.T) {
	f := newFake(t)
	sp, err := f.client(t, fakeKey).Speak(context.Background(), SpeechRequest{Text: "The answer is 42.", Format: "wav", VoiceID: "voice/1"})
	if err != nil || sp.MIME != "audio/wav" || !strings.HasPrefix(string(sp.Data), "ID3") {
		t.Fatalf("%+v %v", sp, err)
	}
	r := f.requests[0]
	if r.URL.EscapedPath() != "/v1/text-to-speech/voice%2F1" || r.URL.Query().Get("output_format") != "wav_22050" {
		t.Fatalf("url %s", r.URL)
	}
	var body map[string]string
	if json.Unmarshal([]byte(f.bodies[0]), &body); body["text"] != "The answer is 42." || body["model_id"] != DefaultTTSModel {
		t.Fatalf("body %s", f.bodies[0])
	}
	if _, err := f.client(t, fakeKey).Speak(context.Background(), SpeechRequest{Text: "x", Format: "ogg"}); errcode.Of(err) != errcode.InvalidField {
		t.Fatalf("bad format: %v", err)
	}
}
