package record

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestSpanJSONHasOnlyItsKindsFields(t *testing.T) {
	for sp, want := range map[Span]string{
		Lines(1, 20):   `{"kind":"lines","start_line":1,"end_line":20}`,
		Page(3):        `{"kind":"page","page":3}`,
		Time(0, 30000): `{"kind":"time","start_ms":0,"end_ms":30000}`,
	} {
		b, err := json.Marshal(sp)
		if err != nil || string(b) != want {
			t.Errorf("%+v → %s (%v), want %s", sp, b, err, want)
		}
		var back Span
		if err := json.Unmarshal(b, &back); err != nil || back != sp {
			t.Errorf("round trip %s → %+v %v", b, back, err)
		}
	}
	var s Span
	if err := json.Unmarshal([]byte(`{"kind":"chapter"}`), &s); err == nil {
		t.Error("unknown span kind accepted")
	}
}

func TestReaderVersionsAndUnknownFields(t *testing.T) {
	in := `{"type":"document","v":"1.0","rel_path":"a.go","future_field":{"x":1}}

{"type":"document","v":"1.7","rel_path":"b.go"}
{"type":"document","v":"2.0","rel_path":"c.go"}
`
	r := NewReader(strings.NewReader(in), TypeDocument)
	var d Document
	if err := r.Next(&d); err != nil || d.RelPath != "a.go" {
		t.Fatalf("first: %+v %v", d, err)
	}
	if err := r.Next(&d); err != nil || d.RelPath != "b.go" {
		t.Fatalf("minor version must be read: %+v %v", d, err)
	}
	err := r.Next(&d)
	if err == nil || !strings.Contains(err.Error(), "line 4") || !strings.Contains(err.Error(), "version 2.0 is not supported") {
		t.Fatalf("major version error = %v", err)
	}
	r = NewReader(strings.NewReader(`{"type":"chunk","v":"1.0"}`), TypeDocument)
	if err := r.Next(&d); err == nil || !strings.Contains(err.Error(), `got a "chunk" record`) {
		t.Fatalf("wrong type: %v", err)
	}
	r = NewReader(strings.NewReader(`not json`), TypeDocument)
	if err := r.Next(&d); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("malformed: %v", err)
	}
	r = NewReader(strings.NewReader(""), TypeDocument)
	if err := r.Next(&d); err != io.EOF {
		t.Fatalf("empty input: %v", err)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	c := NewChunk()
	c.ChunkID, c.Text, c.Span = 7, "x <b> & y", Lines(1, 2)
	if err := w.Write(c); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if !strings.Contains(b.String(), `"text":"x <b> & y"`) {
		t.Errorf("HTML must not be escaped in NDJSON: %s", b.String())
	}
	var back Chunk
	if err := NewReader(&b, TypeChunk).Next(&back); err != nil || back.ChunkID != 7 || back.Span != c.Span {
		t.Fatalf("%+v %v", back, err)
	}
}

// A span encodes as json.Marshal encodes its shape (the struct of its
// kind), written without reflection.
func TestSpanMarshalJSONIsItsShapesEncoding(t *testing.T) {
	for _, n := range []int64{0, 1, 42, -7, 1 << 40, -1 << 62} {
		for _, c := range []struct {
			span  Span
			shape any
		}{
			{Span{Kind: SpanLines, StartLine: int(n), EndLine: int(n) + 3}, spanLines{SpanLines, int(n), int(n) + 3}},
			{Span{Kind: SpanPage, Page: int(n)}, spanPage{SpanPage, int(n)}},
			{Span{Kind: SpanTime, StartMs: n, EndMs: n + 1500}, spanTime{SpanTime, n, n + 1500}},
		} {
			got, err := c.span.MarshalJSON()
			want, _ := json.Marshal(c.shape)
			if err != nil || string(got) != string(want) {
				t.Errorf("%+v: %s (%v), want %s", c.span, got, err, want)
			}
		}
	}
}
