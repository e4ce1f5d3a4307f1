package transcript

// Between returns the segments that overlap [startMs, endMs] (an endMs of
// 0 or less means "to the end"), in time order. A transcript without
// timestamps has no segments to select.
func (t *Transcript) Between(startMs, endMs int64) []Segment {
	var out []Segment
	for _, s := range t.Segments {
		if s.EndMs < startMs || (endMs > 0 && s.StartMs > endMs) {
			continue
		}
		out = append(out, s)
	}
	return out
}
