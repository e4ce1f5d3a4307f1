package grep

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
)

// fakeSource serves texts from memory.
type fakeSource struct {
	gen   int64
	texts map[string]Text
	loads int
}

func (f *fakeSource) Generation(context.Context) (int64, error) { return f.gen, nil }

func (f *fakeSource) Refs(context.Context) ([]Ref, error) {
	var out []Ref
	for p, t := range f.texts {
		out = append(out, Ref{RelPath: p, DocType: record.DocText, Key: fmt.Sprint(len(t.Body), t.Body[:min(8, len(t.Body))])})
	}
	sortRefs(out)
	return out, nil
}

func sortRefs(rs []Ref) {
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			if rs[j].RelPath < rs[i].RelPath {
				rs[i], rs[j] = rs[j], rs[i]
			}
		}
	}
}

func (f *fakeSource) Load(_ context.Context, refs []Ref, fn func(Ref, Text) error) error {
	for _, r := range refs {
		f.loads++
		if err := fn(r, f.texts[r.RelPath]); err != nil {
			return err
		}
	}
	return nil
}

type hit struct {
	path string
	loc  Location
	text string
}

// collect runs q page by page (max per page), following Next, and returns
// every match and the number of pages.
func collect(t *testing.T, ix *Index, m *Matcher, max, context int, interrupt func() bool) ([]hit, []Match, int) {
	t.Helper()
	var hits []hit
	var all []Match
	from := Position{}
	for pages := 1; ; pages++ {
		n := 0
		res, err := ix.Search(t.Context(), Query{Matcher: m, From: from, Context: context, Interrupt: interrupt,
			Accept: func(x Match) bool {
				if n == max {
					return false
				}
				n++
				hits = append(hits, hit{x.Doc.RelPath, x.Loc, x.Text})
				all = append(all, x)
				return true
			}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Next == nil {
			return hits, all, pages
		}
		if pages > 10000 {
			t.Fatal("no progress")
		}
		from = *res.Next
	}
}

// Paging by keyset positions returns every match exactly once, in
// rel_path and line order, whatever the page size; citations follow the
// text's kind (file lines, HTML line map, pages, times).
func TestSearchPagesAndCites(t *testing.T) {
	src := &fakeSource{gen: 1, texts: map[string]Text{
		"a.go":     {Body: "x := 1\nfoo(x)\nbar\nfoo again\n"},
		"b.html":   {Body: "Title\n\nfoo in html", Map: srcmap.Map{{First: 3, Last: 3}, {First: 7, Last: 7}, {First: 9, Last: 10}}},
		"c.pdf":    {Body: "p1 l1\nfoo p1 l2\nfoo p2 l1", PageStarts: []int{0, 2}},
		"d.mp3":    {Body: "hello\nfoo said", Times: []record.Span{record.Time(0, 900), record.Time(1000, 2500)}},
		"e.txt":    {Body: "nothing here"},
		"f/g.md":   {Body: strings.Repeat("foo\n", 30)},
		"f/h.text": {Body: "foofoo foo", Uncited: true},
	}}
	ix := NewIndex(src)
	m := mustCompile(t, Pattern{Expr: "foo", Literal: true})
	ref, _, _ := collect(t, ix, m, 1000, 0, nil)
	if len(ref) != 4+30+1+1+1 {
		t.Fatalf("%d matches: %+v", len(ref), ref)
	}
	for _, want := range []hit{
		{"a.go", Location{Line: 2, Span: record.Lines(2, 2)}, "foo(x)"},
		{"b.html", Location{Line: 9, Span: record.Lines(9, 10)}, "foo in html"},
		{"c.pdf", Location{Line: 2, Page: 1, Span: record.Page(1)}, "foo p1 l2"},
		{"c.pdf", Location{Line: 1, Page: 2, Span: record.Page(2)}, "foo p2 l1"},
		{"d.mp3", Location{Line: 2, Span: record.Time(1000, 2500)}, "foo said"},
		{"f/h.text", Location{}, "foofoo foo"},
	} {
		found := false
		for _, h := range ref {
			found = found || h == want
		}
		if !found {
			t.Errorf("missing %+v", want)
		}
	}
	for _, size := range []int{1, 2, 3, 7} {
		got, _, pages := collect(t, ix, m, size, 0, nil)
		if fmt.Sprint(got) != fmt.Sprint(ref) {
			t.Errorf("page size %d: %d matches in %d pages differ from one page", size, len(got), pages)
		}
	}
	// Interrupted after every unit of work, the search still ends, with
	// every match once.
	got, _, pages := collect(t, ix, m, 1000, 0, func() bool { return true })
	if fmt.Sprint(got) != fmt.Sprint(ref) || pages < 5 {
		t.Errorf("interrupted each step: %d matches in %d pages", len(got), pages)
	}
	// Context lines.
	_, all, _ := collect(t, ix, mustCompile(t, Pattern{Expr: "^bar$"}), 10, 2, nil)
	if len(all) != 1 || strings.Join(all[0].Before, "|") != "x := 1|foo(x)" || strings.Join(all[0].After, "|") != "foo again" {
		t.Errorf("context: %+v", all)
	}
	// A changed source is reloaded, only what changed.
	loads := src.loads
	src.texts["e.txt"] = Text{Body: "now foo"}
	src.gen++
	got, _, _ = collect(t, ix, m, 1000, 0, nil)
	if len(got) != len(ref)+1 || src.loads != loads+1 {
		t.Errorf("after a change: %d matches, %d loads", len(got), src.loads-loads)
	}
}

// Documents past the memory budget stay cold and are still searched.
func TestColdDocumentsAreSearched(t *testing.T) {
	src := &fakeSource{gen: 1, texts: map[string]Text{}}
	for i := range 50 {
		src.texts[fmt.Sprintf("d%02d.txt", i)] = Text{Body: strings.Repeat("filler line\n", 50) + fmt.Sprintf("needle %d\n", i)}
	}
	ix := NewIndex(src)
	ix.budget = 4000
	got, _, _ := collect(t, ix, mustCompile(t, Pattern{Expr: `needle \d+`}), 1000, 0, nil)
	if len(got) != 50 {
		t.Fatalf("%d matches", len(got))
	}
	cold := 0
	for _, d := range ix.snap.Load().docs {
		if d.cold {
			cold++
		}
	}
	if cold == 0 || cold == 50 {
		t.Fatalf("%d cold documents; want some", cold)
	}
}

// A catastrophic pattern on long lines ends: RE2 is linear, and the scan
// is interrupted between bounded units of work and resumes inside a line
// too long for one unit.
func TestHostilePatternOnLongLines(t *testing.T) {
	long := strings.Repeat("a", 1<<18)
	src := &fakeSource{gen: 1, texts: map[string]Text{"long.txt": {Body: long + "\n" + long + "b\n"}}}
	ix := NewIndex(src)
	// Interrupt every third question: the scan resumes where it stopped.
	asked := 0
	every3 := func() bool { asked++; return asked%3 == 0 }
	for _, p := range []string{`(a*)*b`, `(a|aa)*c`, `(x+x+)+y`, `([a-z]+)*\d{1,50}$`} {
		m := mustCompile(t, Pattern{Expr: p})
		got, _, _ := collect(t, ix, m, 10, 0, every3)
		if p == `(a*)*b` && (len(got) != 1 || got[0].loc.Line != 2) {
			t.Errorf("%s: %d matches", p, len(got))
		}
	}
	// A large program on a long line is matched in pieces: reported as cut.
	m := mustCompile(t, Pattern{Expr: `[a-c]{1,200}b`})
	if m.window() >= 1<<18 {
		t.Fatalf("window %d: the test needs a line longer than a window", m.window())
	}
	_, all, pages := collect(t, ix, m, 10, 0, every3)
	if len(all) != 1 || !all[0].Cut || pages < 3 {
		t.Errorf("long line: %d matches in %d pages", len(all), pages)
	}
}
