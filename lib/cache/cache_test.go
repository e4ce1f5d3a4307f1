package cache

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type entryT struct {
	Text  string `json:"text"`
	Pages int    `json:"pages"`
}

func TestPutGetRoundTripAndLayout(t *testing.T) {
	state := t.TempDir()
	s := Open(state)
	key := Key(ContentHash([]byte("pdf bytes")), "mistral", "mistral-ocr-latest")
	var got entryT
	if ok, err := s.Get(OCR, key, &got); ok || err != nil {
		t.Fatalf("empty cache: %v %v", ok, err)
	}
	if err := s.Put(OCR, key, entryT{"hello", 3}); err != nil {
		t.Fatal(err)
	}
	if ok, err := Open(state).Get(OCR, key, &got); !ok || err != nil || got != (entryT{"hello", 3}) {
		t.Fatalf("reopened: %v %v %+v", ok, err, got)
	}
	p, _ := s.Path(OCR, key)
	if !strings.HasPrefix(p, filepath.Join(state, "cache", "ocr")+string(filepath.Separator)) {
		t.Fatalf("entry at %s", p)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("entry mode %v %v", st.Mode(), err)
	}
	if hits, misses := s.Stats(); hits != 0 || misses != 1 {
		t.Fatalf("stats %d %d", hits, misses)
	}
}

func TestCorruptEntryIsAMissAndRemoved(t *testing.T) {
	s := Open(t.TempDir())
	key := Key("x")
	s.Put(Transcribe, key, entryT{"a", 1})
	p, _ := s.Path(Transcribe, key)
	os.WriteFile(p, []byte(`{"v":1,"kind":"transcribe","data":{"text":`), 0o600)
	var got entryT
	if ok, _ := s.Get(Transcribe, key, &got); ok {
		t.Fatal("corrupt entry hit")
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatal("corrupt entry kept")
	}
	// An entry of another kind under the same key is not returned.
	s.Put(Annotations, key, entryT{"b", 2})
	if ok, _ := s.Get(OCR, key, &got); ok {
		t.Fatal("cross-kind hit")
	}
}

func TestKeysAndKindsAreValidated(t *testing.T) {
	s := Open(t.TempDir())
	if err := s.Put("../../etc", Key("x"), 1); err == nil {
		t.Fatal("bad kind accepted")
	}
	if err := s.Put(OCR, "../../../x", 1); err == nil {
		t.Fatal("bad key accepted")
	}
	if Key("ab", "c") == Key("a", "bc") || Key("a") != Key("a") {
		t.Fatal("Key is not injective on parts")
	}
	if ContentHash([]byte("")) != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatal(ContentHash(nil))
	}
}

func TestConcurrentPutsLeaveAWholeEntry(t *testing.T) {
	s := Open(t.TempDir())
	key := Key("same")
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s.Put(OCR, key, entryT{strings.Repeat("x", 10000), i})
		}(i)
	}
	wg.Wait()
	var got entryT
	if ok, _ := s.Get(OCR, key, &got); !ok || len(got.Text) != 10000 {
		t.Fatalf("entry %v %d", ok, len(got.Text))
	}
	tmp, _ := filepath.Glob(filepath.Join(filepath.Dir(mustPath(t, s, key)), ".*tmp*"))
	if len(tmp) != 0 {
		t.Fatalf("temp files left: %v", tmp)
	}
}

func mustPath(t *testing.T, s *Store, key string) string {
	p, err := s.Path(OCR, key)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
