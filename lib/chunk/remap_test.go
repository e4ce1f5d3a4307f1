package chunk

import (
	"reflect"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
)

func lines(spans ...[2]int) srcmap.Map {
	m := make(srcmap.Map, len(spans))
	for i, s := range spans {
		m[i] = srcmap.Line{First: s[0], Last: s[1]}
	}
	return m
}

func TestRemap(t *testing.T) {
	pieces := []Piece{
		{Text: "a\nb", Span: record.Lines(1, 2)},
		{Text: "c\nd\ne", Span: record.Lines(3, 5)},
		{Text: "x", Span: record.Lines(4, 9)}, // beyond the map: clamps
		{Text: "p", Span: record.Page(3)},     // not a lines span: untouched
	}
	maps := Remap(pieces, lines([2]int{10, 10}, [2]int{12, 13}, [2]int{12, 12}, [2]int{20, 24}, [2]int{31, 31}))
	want := []record.Span{record.Lines(10, 13), record.Lines(12, 31), record.Lines(20, 31), record.Page(3)}
	for i, p := range pieces {
		if p.Span != want[i] {
			t.Errorf("piece %d span = %+v, want %+v", i, p.Span, want[i])
		}
	}
	if len(maps[1]) != 3 || maps[1][1].First != 20 || maps[3] != nil {
		t.Errorf("piece maps: %v, %v", maps[1], maps[3])
	}
}

func TestRemapNilMapIsIdentity(t *testing.T) {
	pieces := []Piece{{Text: "x", Span: record.Lines(3, 7)}}
	if Remap(pieces, nil) != nil || pieces[0].Span != record.Lines(3, 7) {
		t.Errorf("span changed to %+v", pieces[0].Span)
	}
}

// A text joined from lines 4–9 (a table row whose cells sit on separate
// source lines) cites all of them, and a span never ends before it starts.
func TestRemapCoversEveryContributingLine(t *testing.T) {
	pieces := []Piece{{Text: "a | b", Span: record.Lines(1, 1)}, {Text: "x\ny", Span: record.Lines(2, 3)}}
	Remap(pieces, lines([2]int{4, 9}, [2]int{9, 9}, [2]int{9, 9}))
	if pieces[0].Span != record.Lines(4, 9) || pieces[1].Span != record.Lines(9, 9) {
		t.Errorf("spans %+v %+v", pieces[0].Span, pieces[1].Span)
	}
}

// The parts of a split line get the line's marks shifted to their own
// bytes and clipped to them.
func TestRemapSplitLineMarks(t *testing.T) {
	line := "# Heading text [link](https://example.com/) tail"
	m := srcmap.Map{{First: 7, Last: 8, Marks: []srcmap.Mark{{From: 0, To: 2}, {From: 15, To: 16}, {From: 20, To: 43}}}}
	pieces := []Piece{
		{Text: line[:18], Span: record.Lines(1, 1)},
		{Text: line[10:30], Span: record.Lines(1, 1), Col: 10},
	}
	maps := Remap(pieces, m)
	if got := maps[0].Quote(pieces[0].Text); got != "Heading text li" {
		t.Errorf("first part quotes %q", got)
	}
	if got := maps[1].Quote(pieces[1].Text); got != "text link" {
		t.Errorf("second part quotes %q", got)
	}
	want := []srcmap.Mark{{From: 5, To: 6}, {From: 10, To: 20}}
	if !reflect.DeepEqual(maps[1][0].Marks, want) || pieces[1].Span != record.Lines(7, 8) {
		t.Errorf("second part: marks %v span %+v", maps[1][0].Marks, pieces[1].Span)
	}
}
