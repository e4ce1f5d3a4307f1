package transcript

import (
	"math"
	"sort"
	"strings"
)

// Timed is one provider item with times in seconds: a Mistral segment
// {text, start, end} or an ElevenLabs word {text, start, end, type,
// speaker_id}.
type Timed struct {
	Text    string
	Start   float64 // seconds
	End     float64 // seconds
	Type    string  // ElevenLabs: word | spacing | audio_event
	Speaker string
}

// Word grouping: a segment built from words ends at a sentence end once it
// is at least minSentenceMs long, at a speaker change, at a pause longer
// than maxGapMs, or when it reaches maxSegmentMs.
const (
	minSentenceMs = 3000
	maxGapMs      = 1500
	maxSegmentMs  = 15000
)

// FromSegments builds a transcript from timed segments (Mistral). text is
// the provider's full text; when empty it is the segments joined. Without
// segments the transcript has no timestamps.
func FromSegments(provider, model, language, text string, segs []Timed) *Transcript {
	t := &Transcript{Provider: provider, Model: model, Language: language}
	for _, s := range segs {
		txt := strings.TrimSpace(s.Text)
		if txt == "" {
			continue
		}
		start, end := toMs(s.Start), toMs(s.End)
		t.Segments = append(t.Segments, Segment{StartMs: start, EndMs: max(end, start), Text: txt, Speaker: s.Speaker})
	}
	return t.finish(text)
}

// FromWords builds a transcript from timed words (ElevenLabs), grouping
// them into sentence-like segments. "spacing" items only separate words.
func FromWords(provider, model, language, text string, words []Timed) *Transcript {
	t := &Transcript{Provider: provider, Model: model, Language: language}
	var cur *Segment
	var b strings.Builder
	flush := func() {
		if cur != nil {
			cur.Text = strings.Join(strings.Fields(b.String()), " ")
			if cur.Text != "" {
				t.Segments = append(t.Segments, *cur)
			}
		}
		cur = nil
		b.Reset()
	}
	for _, w := range words {
		if w.Type == "spacing" {
			if cur != nil {
				b.WriteString(" ")
			}
			continue
		}
		if strings.TrimSpace(w.Text) == "" {
			continue
		}
		start, end := toMs(w.Start), toMs(w.End)
		end = max(end, start)
		if cur != nil && (w.Speaker != cur.Speaker || start-cur.EndMs > maxGapMs || end-cur.StartMs > maxSegmentMs) {
			flush()
		}
		if cur == nil {
			cur = &Segment{StartMs: start, EndMs: end, Speaker: w.Speaker}
		}
		b.WriteString(w.Text)
		cur.EndMs = max(cur.EndMs, end)
		if endsSentence(w.Text) && cur.EndMs-cur.StartMs >= minSentenceMs {
			flush()
		}
	}
	flush()
	return t.finish(text)
}

func (t *Transcript) finish(text string) *Transcript {
	sort.SliceStable(t.Segments, func(i, j int) bool { return t.Segments[i].StartMs < t.Segments[j].StartMs })
	for _, s := range t.Segments {
		if s.EndMs > 0 {
			t.Timestamps = true
		}
		t.DurationMs = max(t.DurationMs, s.EndMs)
	}
	if !t.Timestamps {
		// Segments without times carry no provenance: keep only the text.
		if text == "" {
			parts := make([]string, len(t.Segments))
			for i, s := range t.Segments {
				parts[i] = s.Text
			}
			text = strings.Join(parts, " ")
		}
		t.Segments = nil
	}
	text = strings.TrimSpace(text)
	if text == "" {
		parts := make([]string, len(t.Segments))
		for i, s := range t.Segments {
			parts[i] = s.Text
		}
		text = strings.Join(parts, " ")
	}
	t.Text = text
	return t
}

func endsSentence(w string) bool {
	w = strings.TrimRight(strings.TrimSpace(w), `"')]`)
	return strings.HasSuffix(w, ".") || strings.HasSuffix(w, "?") || strings.HasSuffix(w, "!")
}

// toMs converts seconds to milliseconds; negative and non-finite times
// become 0.
func toMs(sec float64) int64 {
	if math.IsNaN(sec) || math.IsInf(sec, 0) || sec <= 0 {
		return 0
	}
	return int64(math.Round(sec * 1000))
}
