package transcript

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

func TestFromSegmentsNormalises(t *testing.T) {
	tr := FromSegments("mistral", "voxtral-mini-2507", "en", "", []Timed{
		{Text: " second ", Start: 2.1, End: 4.5},
		{Text: "first", Start: 0, End: 1.8444},
		{Text: "  ", Start: 5, End: 6},
		{Text: "bad times", Start: math.NaN(), End: -1},
	})
	want := []Segment{{0, 1844, "first", ""}, {0, 0, "bad times", ""}, {2100, 4500, "second", ""}}
	if !reflect.DeepEqual(tr.Segments, want) {
		t.Fatalf("segments %+v", tr.Segments)
	}
	if !tr.Timestamps || tr.DurationMs != 4500 || tr.Text != "first bad times second" {
		t.Fatalf("%+v", tr)
	}
	if tr.MetaJSON() != `{"provider":"mistral","model":"voxtral-mini-2507","timestamps":true,"language":"en","duration_ms":4500}` {
		t.Fatalf("meta %s", tr.MetaJSON())
	}
}

func TestNoTimesMeansNoTimestamps(t *testing.T) {
	tr := FromSegments("mistral", "m", "", "whole text", nil)
	if tr.Timestamps || tr.Segments != nil || tr.Text != "whole text" {
		t.Fatalf("%+v", tr)
	}
	tr = FromSegments("mistral", "m", "", "", []Timed{{Text: "a"}, {Text: "b"}})
	if tr.Timestamps || tr.Segments != nil || tr.Text != "a b" {
		t.Fatalf("zero times: %+v", tr)
	}
	if tr.MetaJSON() != `{"provider":"mistral","model":"m","timestamps":false}` {
		t.Fatalf("meta %s", tr.MetaJSON())
	}
}

func word(text string, start, end float64, speaker string) Timed {
	return Timed{Text: text, Start: start, End: end, Type: "word", Speaker: speaker}
}

func TestFromWordsGroupsSentencesSpeakersAndPauses(t *testing.T) {
	sp := Timed{Text: " ", Type: "spacing"}
	words := []Timed{
		word("Good", 0, 0.4, "s0"), sp, word("morning", 0.5, 1, "s0"), sp, word("team.", 1.1, 3.2, "s0"), sp,
		word("(laughter)", 3.3, 3.9, "s0"), sp,
		word("Hi", 4.0, 4.2, "s1"), sp, word("there", 4.3, 4.6, "s1"), sp,
		word("later", 9.0, 9.5, "s1"),
	}
	tr := FromWords("elevenlabs", "scribe_v1", "eng", "", words)
	want := []Segment{
		{0, 3200, "Good morning team.", "s0"},
		{3300, 3900, "(laughter)", "s0"},
		{4000, 4600, "Hi there", "s1"},
		{9000, 9500, "later", "s1"},
	}
	if !reflect.DeepEqual(tr.Segments, want) {
		t.Fatalf("segments\n%+v\nwant\n%+v", tr.Segments, want)
	}
}

func TestFromWordsCapsSegmentLength(t *testing.T) {
	var words []Timed
	for i := 0; i < 100; i++ {
		words = append(words, word("w", float64(i)*0.5, float64(i)*0.5+0.4, ""))
	}
	tr := FromWords("elevenlabs", "m", "", "", words)
	for _, s := range tr.Segments {
		if s.EndMs-s.StartMs > maxSegmentMs {
			t.Fatalf("segment of %d ms", s.EndMs-s.StartMs)
		}
	}
	if len(tr.Segments) < 3 {
		t.Fatalf("%d segments for 50 s of speech", len(tr.Segments))
	}
}

// every10s returns segments starting every 10 s, 8 s long.
func every10s(n int) *Transcript {
	var segs []Timed
	for i := 0; i < n; i++ {
		segs = append(segs, Timed{Text: fmt.Sprintf("s%d", i), Start: float64(i * 10), End: float64(i*10 + 8)})
	}
	return FromSegments("mistral", "m", "", "", segs)
}

func TestChunksAreOverlappingTimeWindows(t *testing.T) {
	got := every10s(7).Chunks(ChunkOptions{}) // segments at 0,10,...,60 s
	type c struct {
		text       string
		start, end int64
	}
	var have []c
	for i, ch := range got {
		if ch.Ordinal != i || ch.Span.Kind != record.SpanTime {
			t.Fatalf("chunk %d: %+v", i, ch)
		}
		have = append(have, c{ch.Text, ch.Span.StartMs, ch.Span.EndMs})
	}
	// Windows [0,30) [25,55) [50,80): a segment starting at 50 s is in the
	// last 5 s of the second window and opens the third.
	want := []c{{"s0\ns1\ns2", 0, 28000}, {"s3\ns4\ns5", 30000, 58000}, {"s5\ns6", 50000, 68000}}
	if !reflect.DeepEqual(have, want) {
		t.Fatalf("chunks\n%+v\nwant\n%+v", have, want)
	}
}

func TestChunksSkipGapsAndRepeatedWindows(t *testing.T) {
	tr := FromSegments("mistral", "m", "", "", []Timed{{Text: "a", Start: 27, End: 29}, {Text: "b", Start: 300, End: 301}})
	got := tr.Chunks(ChunkOptions{})
	if len(got) != 2 || got[0].Text != "a" || got[1].Text != "b" || got[1].Span.StartMs != 300000 {
		t.Fatalf("%+v", got)
	}
}

func TestChunksSplitLongWindowsBySize(t *testing.T) {
	long := strings.Repeat("word ", 200) // 1000 bytes
	tr := FromSegments("mistral", "m", "", "", []Timed{{Text: long, Start: 0, End: 5}, {Text: "short", Start: 6, End: 7}})
	got := tr.Chunks(ChunkOptions{MaxChars: 300})
	if len(got) < 5 {
		t.Fatalf("%d chunks", len(got))
	}
	for _, c := range got {
		if len(c.Text) > 300 || c.Span.Kind != record.SpanTime {
			t.Fatalf("chunk %+v", c)
		}
	}
	if last := got[len(got)-1]; last.Text != "short" || last.Span.StartMs != 6000 {
		t.Fatalf("last %+v", last)
	}
}

func TestChunksWithoutTimestampsHaveNoSpan(t *testing.T) {
	tr := FromSegments("mistral", "m", "", strings.Repeat("A sentence of the transcript.\n", 300), nil)
	got := tr.Chunks(ChunkOptions{})
	if len(got) < 2 {
		t.Fatalf("%d chunks", len(got))
	}
	for _, c := range got {
		if c.Span != (record.Span{}) || len(c.Text) > 2600 {
			t.Fatalf("chunk %+v", c.Span)
		}
	}
}

func TestSpeakerLabelsInChunkText(t *testing.T) {
	tr := &Transcript{Timestamps: true, Segments: []Segment{{0, 1000, "hello", "speaker_0"}, {1000, 2000, "hi", "speaker_1"}}}
	if got := tr.Chunks(ChunkOptions{})[0].Text; got != "speaker_0: hello\nspeaker_1: hi" {
		t.Fatalf("%q", got)
	}
}

type countingTranscriber struct{ calls int }

func (c *countingTranscriber) Provider() string { return "fake" }
func (c *countingTranscriber) Model() string    { return "m" }
func (c *countingTranscriber) Transcribe(ctx context.Context, a Audio) (*Transcript, error) {
	c.calls++
	return FromSegments("fake", "m", a.Language, "", []Timed{{Text: string(a.Data), Start: 0, End: 1}}), nil
}

func TestCachedTranscribesOnce(t *testing.T) {
	ct := &countingTranscriber{}
	dir := t.TempDir()
	a := Audio{Data: []byte("speech"), Timestamps: true}
	for i := 0; i < 2; i++ {
		tr, err := Cached(ct, cache.Open(dir)).Transcribe(context.Background(), a)
		if err != nil || tr.Segments[0].Text != "speech" || !tr.Timestamps {
			t.Fatalf("%+v %v", tr, err)
		}
	}
	a.Timestamps = false
	Cached(ct, cache.Open(dir)).Transcribe(context.Background(), a)
	if ct.calls != 2 {
		t.Fatalf("calls %d, want 2", ct.calls)
	}
}
