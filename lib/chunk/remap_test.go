package chunk

import (
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

func TestRemap(t *testing.T) {
	pieces := []Piece{
		{Span: record.Lines(1, 2)},
		{Span: record.Lines(3, 5)},
		{Span: record.Lines(4, 9)}, // beyond the map: clamps
		{Span: record.Page(3)},     // not a lines span: untouched
	}
	Remap(pieces, []int{10, 12, 12, 20, 31})
	want := []record.Span{record.Lines(10, 12), record.Lines(12, 31), record.Lines(20, 31), record.Page(3)}
	for i, p := range pieces {
		if p.Span != want[i] {
			t.Errorf("piece %d span = %+v, want %+v", i, p.Span, want[i])
		}
	}
}

func TestRemapNilMapIsIdentity(t *testing.T) {
	pieces := []Piece{{Span: record.Lines(3, 7)}}
	Remap(pieces, nil)
	if pieces[0].Span != record.Lines(3, 7) {
		t.Errorf("span changed to %+v", pieces[0].Span)
	}
}

func TestRemapDecreasingMapKeepsOrder(t *testing.T) {
	pieces := []Piece{{Span: record.Lines(1, 2)}}
	Remap(pieces, []int{9, 4})
	if pieces[0].Span != record.Lines(9, 9) {
		t.Errorf("span = %+v, want L9-L9", pieces[0].Span)
	}
}
