package transcript

import (
	"context"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/cache"
)

func TestBetween(t *testing.T) {
	tr := FromSegments("mistral", "m", "en", "", []Timed{{Text: "a", Start: 0, End: 1}, {Text: "b", Start: 1, End: 2.5}, {Text: "c", Start: 10, End: 12}})
	for _, tc := range []struct {
		start, end int64
		want       string
	}{{0, 0, "abc"}, {1500, 2000, "b"}, {900, 1000, "ab"}, {2600, 9000, ""}, {11000, 0, "c"}} {
		got := ""
		for _, s := range tr.Between(tc.start, tc.end) {
			got += s.Text
		}
		if got != tc.want {
			t.Errorf("Between(%d, %d) = %q, want %q", tc.start, tc.end, got, tc.want)
		}
	}
	if MIMEByExt("x/Call.MP3") != "audio/mpeg" || MIMEByExt("a.wav") != "audio/wav" || MIMEByExt("a.txt") != "" {
		t.Error("MIMEByExt")
	}
}

type countingSTT struct{ calls int }

func (c *countingSTT) Provider() string { return "mistral" }
func (c *countingSTT) Model() string    { return "m" }
func (c *countingSTT) Transcribe(context.Context, Audio) (*Transcript, error) {
	c.calls++
	return FromSegments("mistral", "m", "", "call", nil), nil
}

func TestRefreshedBypassesThenFillsTheCache(t *testing.T) {
	store := cache.Open(t.TempDir())
	stt := &countingSTT{}
	a := Audio{Data: []byte("RIFF...."), Name: "a.wav"}
	Cached(stt, store).Transcribe(context.Background(), a)
	Refreshed(stt, store).Transcribe(context.Background(), a)
	Cached(stt, store).Transcribe(context.Background(), a)
	if stt.calls != 2 {
		t.Errorf("%d provider calls, want 2 (cached, refreshed, then the refreshed entry)", stt.calls)
	}
}
