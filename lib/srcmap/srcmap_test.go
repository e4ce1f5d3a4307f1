package srcmap

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

func TestSpan(t *testing.T) {
	m := Map{{First: 3, Last: 3}, {First: 3, Last: 7}, {First: 5, Last: 5}, {First: 9, Last: 9}}
	for _, c := range []struct {
		lo, hi int
		want   record.Span
	}{
		{1, 1, record.Lines(3, 3)},
		{1, 3, record.Lines(3, 7)}, // a line joined from 3–7 widens the span
		{3, 4, record.Lines(5, 9)},
		{4, 9, record.Lines(9, 9)}, // past the end: clamps
		{3, 1, record.Lines(5, 5)}, // reversed: never ends before it starts
	} {
		if got := m.Span(c.lo, c.hi); got != c.want {
			t.Errorf("Span(%d, %d) = %+v, want %+v", c.lo, c.hi, got, c.want)
		}
	}
	if got := Map(nil).Span(4, 6); got != record.Lines(4, 6) {
		t.Errorf("identity span = %+v", got)
	}
}

func TestQuote(t *testing.T) {
	l := Line{Marks: []Mark{{0, 3, Drop}, {4, 20, Drop}, {22, 25, Sep}}}
	text := "- [a](https://x.io/) b | c"
	if got := l.Quote(text); got != "a b\tc" {
		t.Errorf("Quote = %q", got)
	}
	gap := Line{Marks: []Mark{{0, 0, Gap}}}
	if got := gap.Quote("after"); got != "…after" {
		t.Errorf("gap quote = %q", got)
	}
	if got := (Map{{}, gap}).Quote("x\ny\nz"); got != "x\n…y\nz" {
		t.Errorf("map quote = %q", got)
	}
	if got := Map(nil).Quote("# as is"); got != "# as is" {
		t.Errorf("nil map quote = %q", got)
	}
}

func TestCut(t *testing.T) {
	m := Map{
		{First: 1, Last: 1, Marks: []Mark{{0, 2, Drop}, {6, 9, Sep}}},
		{First: 2, Last: 4, Marks: []Mark{{0, 0, Gap}, {3, 5, Drop}}},
	}
	// A piece starting 4 bytes into line 1 and running into line 2.
	got := m.Cut(1, 4, "cd | ef\nabcde")
	want := Map{
		{First: 1, Last: 1, Marks: []Mark{{2, 5, Sep}}},
		{First: 2, Last: 4, Marks: []Mark{{0, 0, Gap}, {3, 5, Drop}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Cut = %+v\nwant %+v", got, want)
	}
	// A middle part of line 1: the Sep is clipped to the part's end.
	if got := m.Cut(1, 5, " |"); !reflect.DeepEqual(got, Map{{First: 1, Last: 1, Marks: []Mark{{1, 2, Sep}}}}) {
		t.Errorf("clipped Cut = %+v", got)
	}
	if Map(nil).Cut(1, 0, "x") != nil {
		t.Error("nil map cut is not nil")
	}
}

func TestJSONRoundTrip(t *testing.T) {
	m := Map{{First: 4, Last: 6, Marks: []Mark{{0, 2, Drop}, {5, 8, Sep}, {9, 9, Gap}}}, {First: 7, Last: 7}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "[[4,6,0,2,0,5,8,1,9,9,2],[7,7]]" {
		t.Errorf("json = %s", b)
	}
	var back Map
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, m) {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte("[[1,2,3]]"), &back); err == nil {
		t.Error("a malformed line was accepted")
	}
}
