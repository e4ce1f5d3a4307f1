package mcpserver

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

// searchTextHits are hits of every span kind with awkward paths, scores
// and snippets.
func searchTextHits() []retrieve.Hit {
	return []retrieve.Hit{
		{RelPath: "src/a.go", Score: 0.98765, Snippet: "func A() {\n\treturn\n}", Span: record.Lines(10, 12)},
		{RelPath: "docs/ü \"q\".md", Score: 0.00005, Snippet: "", Span: record.Lines(1, 1)},
		{RelPath: "r.pdf", Score: -0.5, Snippet: "page text\n", Span: record.Page(3)},
		{RelPath: "call.mp3", Score: 1e-9, Snippet: "\n\nsaid\n", Span: record.Time(65000, 3725000)},
		{RelPath: "x", Score: math.Inf(1), Snippet: "a\r\nb", Span: record.Span{}},
		{RelPath: strings.Repeat("deep/", 40) + "f.txt", Score: 12345.6789, Snippet: "long", Span: record.Lines(1<<30, 1<<30+5)},
	}
}

// The search summary is written as it was with fmt: one line per hit
// with its citation and score (%.4f), the snippet indented.
func TestSummarizeHitsText(t *testing.T) {
	old := func(res retrieve.Result) string {
		var b strings.Builder
		if len(res.Hits) == 0 {
			fmt.Fprintf(&b, "No matches for %q.", res.Query)
		} else {
			fmt.Fprintf(&b, "%d result(s) for %q", len(res.Hits), res.Query)
			if res.IndexUsed != "" {
				fmt.Fprintf(&b, " (index: %s)", res.IndexUsed)
			}
			b.WriteString(":\n")
			for i, h := range res.Hits {
				fmt.Fprintf(&b, "\n%d. %s score=%.4f\n", i+1, oldCite(h.RelPath, h.Span), h.Score)
				for _, ln := range strings.Split(h.Snippet, "\n") {
					b.WriteString("   ")
					b.WriteString(ln)
					b.WriteByte('\n')
				}
			}
		}
		if !res.IndexingComplete {
			b.WriteString("\n(indexing is still running; results may be incomplete)")
		}
		return strings.TrimRight(b.String(), "\n")
	}
	hits := searchTextHits()
	for _, res := range []retrieve.Result{
		{Query: "plain", IndexUsed: "both", Hits: hits, IndexingComplete: true},
		{Query: "quote \" and \\ and \u2028 and \x01 é", Hits: hits[:2]},
		{Query: "none", IndexingComplete: true},
		{Query: "none yet"},
		{Query: "nan", Hits: []retrieve.Hit{{RelPath: "n", Score: math.NaN(), Span: record.Lines(1, 2)}, {RelPath: "m", Score: math.Copysign(0, -1), Span: record.Lines(1, 2)}}},
	} {
		if got, want := summarizeHits(res), old(res); got != want {
			t.Errorf("summary of %q:\n%s\nwant\n%s", res.Query, got, want)
		}
	}
}

// oldCite is retrieve.Cite as fmt wrote it.
func oldCite(relPath string, sp record.Span) string {
	switch sp.Kind {
	case record.SpanLines:
		return fmt.Sprintf("[%s:L%d-L%d]", relPath, sp.StartLine, sp.EndLine)
	case record.SpanPage:
		return fmt.Sprintf("[%s#p=%d]", relPath, sp.Page)
	}
	return retrieve.Cite(relPath, sp)
}

// A hit's key, which cursors carry, is the FNV-1a hash it always was.
func TestHitKeyUnchanged(t *testing.T) {
	for _, h := range searchTextHits() {
		f := fnv.New32a()
		fmt.Fprintf(f, "%s\x00%s:%d:%d:%d:%d:%d", h.RelPath, h.Span.Kind, h.Span.StartLine, h.Span.EndLine, h.Span.Page, h.Span.StartMs, h.Span.EndMs)
		if got, want := hitKey(h), f.Sum32(); got != want {
			t.Errorf("hitKey(%q %+v) = %d, want %d", h.RelPath, h.Span, got, want)
		}
	}
}

// A search answer writes its JSON exactly as json.Marshal does, and
// declines what json.Marshal refuses.
func TestSearchResultJSONIsJSONMarshal(t *testing.T) {
	want := []string{"query string", "k int", "index_used string", "hits []retrieve.Hit", "indexing_complete bool",
		"truncated bool", "omitted_hits,omitempty int", "next_cursor,omitempty string"}
	wantHit := []string{"chunk_id int64", "rel_path string", "doc_type string", "rep_type string", "score float64",
		"snippet string", "span record.Span"}
	if !slices.Equal(jsonFields(reflect.TypeFor[searchResult]()), want) ||
		!slices.Equal(jsonFields(reflect.TypeFor[retrieve.Hit]()), wantHit) {
		t.Fatal("searchResult or retrieve.Hit has fields appendJSON does not write: update it")
	}
	hits := searchTextHits()[:4]
	hits = append(hits, retrieve.Hit{ChunkID: -3, RelPath: "<a>&b", Score: 1e-7, Snippet: "\u2028\x00\xff", Span: record.Lines(1, 1)},
		retrieve.Hit{Score: 1e21, Span: record.Page(0)}, retrieve.Hit{Score: 123456789.125, Span: record.Time(0, 0)},
		retrieve.Hit{Score: math.Copysign(0, -1)}, retrieve.Hit{Score: 5e-324}, retrieve.Hit{Score: -2.5e-10})
	for _, r := range []searchResult{
		{Result: retrieve.Result{Query: "q \"x\" <y>", K: 10, IndexUsed: "both", Hits: hits, IndexingComplete: true}, NextCursor: "abc_-"},
		{Result: retrieve.Result{Query: "", Hits: []retrieve.Hit{}}, Truncated: true, OmittedHits: 3},
		{Result: retrieve.Result{Query: "nil hits"}},
	} {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := r.appendJSON(nil); !ok || string(got) != string(want) {
			t.Errorf("appendJSON = %s (%v)\njson.Marshal = %s", got, ok, want)
		}
	}
	for _, h := range []retrieve.Hit{{Score: math.NaN()}, {Score: math.Inf(-1)}, {Span: record.Span{Kind: "bogus"}}} {
		r := searchResult{Result: retrieve.Result{Hits: []retrieve.Hit{h}}}
		if _, err := json.Marshal(r); err == nil {
			t.Fatalf("json.Marshal took %+v", h)
		}
		if _, ok := r.appendJSON(nil); ok {
			t.Errorf("appendJSON took %+v, which json.Marshal refuses", h)
		}
	}
}

// jsonFields lists the fields json.Marshal writes of struct t, in order,
// as "tag type" (embedded structs without a tag flattened).
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		switch {
		case tag == "-" || !f.IsExported() && !f.Anonymous:
			continue
		case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
			out = append(out, jsonFields(f.Type)...)
			continue
		case tag == "" || strings.HasPrefix(tag, ","):
			tag = f.Name + tag
		}
		out = append(out, tag+" "+f.Type.String())
	}
	return out
}
