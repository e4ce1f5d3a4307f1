package transcript

import (
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// ChunkOptions configures Chunks. Zero fields take the SPEC §16.2 defaults.
type ChunkOptions struct {
	SegmentMs int64 // window length (default 30000)
	OverlapMs int64 // overlap between consecutive windows (default 5000)
	// MaxChars caps a chunk's bytes (default 2500); a window with more text
	// is split into several chunks, each spanning its own segments.
	MaxChars int
	// Text configures size chunking of transcripts without timestamps.
	Text chunk.TextOptions
}

func (o ChunkOptions) normalized() ChunkOptions {
	if o.SegmentMs <= 0 {
		o.SegmentMs = 30000
	}
	if o.OverlapMs < 0 || o.OverlapMs >= o.SegmentMs {
		o.OverlapMs = 0
	}
	if o.OverlapMs == 0 && o.SegmentMs == 30000 {
		o.OverlapMs = 5000
	}
	if o.MaxChars <= 0 {
		o.MaxChars = 2500
	}
	return o
}

// Chunk is one chunk of a transcript.
type Chunk struct {
	Ordinal int
	Text    string
	// Span is a time span (record.SpanTime) in milliseconds, or the zero
	// Span (no provenance; it marshals as null) for a transcript without
	// timestamps.
	Span record.Span
}

// Chunks splits t for embedding. With timestamps, segments are grouped into
// windows on a fixed grid — [0, SegmentMs), [step, step+SegmentMs), ... with
// step = SegmentMs−OverlapMs — by their start time, so a segment starting in
// the last OverlapMs of a window also opens the next one; a window adding no
// segment beyond the previous one is skipped, and each chunk's span runs
// from its first segment's start to its segments' latest end. Without
// timestamps the text is chunked by size (lib/chunk) and spans are omitted.
func (t *Transcript) Chunks(opt ChunkOptions) []Chunk {
	opt = opt.normalized()
	var out []Chunk
	if !t.Timestamps || len(t.Segments) == 0 {
		for _, p := range chunk.Text(t.Text, opt.Text) {
			out = append(out, Chunk{Ordinal: len(out), Text: p.Text})
		}
		return out
	}
	segs := t.Segments
	step := opt.SegmentMs - opt.OverlapMs
	// firstWindow is the smallest k with k*step+SegmentMs > start: the
	// earliest window containing a segment that starts at start.
	firstWindow := func(start int64) int64 {
		if start < opt.SegmentMs {
			return 0
		}
		return (start-opt.SegmentMs)/step + 1
	}
	lo, lastIncluded := 0, -1
	for k := firstWindow(segs[0].StartMs); lo < len(segs); {
		ws, we := k*step, k*step+opt.SegmentMs
		for lo < len(segs) && segs[lo].StartMs < ws {
			lo++
		}
		if lo == len(segs) {
			break
		}
		hi := lo
		for hi < len(segs) && segs[hi].StartMs < we {
			hi++
		}
		if hi == lo { // a gap in the speech: jump to the next segment
			k = max(k+1, firstWindow(segs[lo].StartMs))
			continue
		}
		if hi-1 > lastIncluded {
			out = appendWindow(out, segs[lo:hi], opt.MaxChars)
			lastIncluded = hi - 1
		}
		k++
	}
	return out
}

// appendWindow appends one window's segments as chunks of at most maxChars.
func appendWindow(out []Chunk, segs []Segment, maxChars int) []Chunk {
	var group []Segment
	size := 0
	emit := func() {
		if len(group) > 0 {
			out = append(out, makeChunk(len(out), group))
		}
		group, size = nil, 0
	}
	for _, s := range segs {
		line := segmentLine(s)
		if len(line) > maxChars {
			emit()
			for _, part := range splitText(line, maxChars) {
				out = append(out, Chunk{Ordinal: len(out), Text: part, Span: record.Time(s.StartMs, s.EndMs)})
			}
			continue
		}
		if size > 0 && size+1+len(line) > maxChars {
			emit()
		}
		group = append(group, s)
		size += len(line) + 1
	}
	emit()
	return out
}

func makeChunk(ordinal int, segs []Segment) Chunk {
	lines := make([]string, len(segs))
	end := segs[0].EndMs
	for i, s := range segs {
		lines[i] = segmentLine(s)
		end = max(end, s.EndMs)
	}
	return Chunk{Ordinal: ordinal, Text: strings.Join(lines, "\n"), Span: record.Time(segs[0].StartMs, end)}
}

func segmentLine(s Segment) string {
	if s.Speaker != "" {
		return s.Speaker + ": " + s.Text
	}
	return s.Text
}

// splitText cuts s into pieces of at most max bytes, at spaces when
// possible and never inside a rune.
func splitText(s string, max int) []string {
	var out []string
	for len(s) > max {
		cut := strings.LastIndexByte(s[:max+1], ' ')
		if cut <= 0 {
			cut = max
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
		}
		out = append(out, strings.TrimSpace(s[:cut]))
		s = strings.TrimSpace(s[cut:])
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
