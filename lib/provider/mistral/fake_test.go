package mistral

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/provider"
	"github.com/dir2mcp/dir2mcp/lib/provider/mistral/mistraltest"
)

// fakeMistral is the shared fake Mistral API (mistraltest) set up with
// replies these tests can check exactly.
type fakeMistral struct {
	*mistraltest.Server
}

func newFake(t testing.TB) *fakeMistral {
	s := mistraltest.New()
	t.Cleanup(s.Close)
	// One page per line of the document.
	s.OCRPages = func(data []byte, _ string) []string {
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		for i, l := range lines {
			lines[i] = fmt.Sprintf("# Page %d\n\n%s", i+1, l)
		}
		return lines
	}
	s.Annotation = func(pages []string) string {
		_, first, _ := strings.Cut(pages[0], "\n\n")
		return fmt.Sprintf(`{"pages":%d,"title":%q}`, len(pages), first)
	}
	s.Segments = []mistraltest.Segment{{Text: "Good morning team.", Start: 0, End: 1.84}, {Text: "Today we finish the indexer.", Start: 2.1, End: 4.5}}
	s.AudioSeconds = 5
	s.Reply = func([]mistraltest.ChatMessage) string { return "Paris [doc.md:L1-L2]" }
	// (3, 4) at positions set by the input's length: not normalised on
	// purpose, and recognisable per input.
	s.Vector = func(text string, dim int) []float32 {
		v := make([]float32, dim)
		v[len(text)%dim] = 3
		v[(len(text)+1)%dim] = 4
		return v
	}
	return &fakeMistral{s}
}

func (f *fakeMistral) client(t testing.TB, o Options) *Client {
	t.Helper()
	o.BaseURL = f.URL
	if !o.APIKey.IsSet() {
		o.APIKey = config.Secret{Value: mistraltest.Key, Source: "env:MISTRAL_API_KEY"}
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
