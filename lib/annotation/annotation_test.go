package annotation

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
)

func TestFlattenKeepsOrderAndPaths(t *testing.T) {
	got, err := Flatten(json.RawMessage(`{"vendor":"ACME\nGmbH","total":1234.50,"paid":false,"items":[{"name":"bolt","qty":3},{"name":"nut"}],"note":null,"tags":[],"meta":{}}`))
	want := "vendor: ACME GmbH\ntotal: 1234.50\npaid: false\nitems[0].name: bolt\nitems[0].qty: 3\nitems[1].name: nut"
	if err != nil || got != want {
		t.Fatalf("got %q, %v\nwant %q", got, err, want)
	}
	if got, _ := Flatten(json.RawMessage(`"just text"`)); got != "value: just text" {
		t.Fatalf("scalar: %q", got)
	}
	for _, bad := range []string{`{"a":`, `{"a":1} x`, ``} {
		if _, err := Flatten(json.RawMessage(bad)); errcode.Of(err) != errcode.AnnotateFailed {
			t.Errorf("Flatten(%q): %v", bad, err)
		}
	}
}

type countingAnnotator struct{ calls int }

func (a *countingAnnotator) Provider() string { return "fake" }
func (a *countingAnnotator) Model() string    { return "m" }
func (a *countingAnnotator) Annotate(ctx context.Context, r Request) (*Result, error) {
	a.calls++
	return &Result{Provider: "fake", Model: "m", JSON: json.RawMessage(`{"title":"` + string(r.Document.Data) + `"}`)}, nil
}

func TestCachedKeysOnSchemaToo(t *testing.T) {
	a := &countingAnnotator{}
	c := Cached(a, cache.Open(t.TempDir()))
	req := Request{Document: ocr.Document{Data: []byte("Report"), MIME: "application/pdf"}, Schema: json.RawMessage(`{"type":"object"}`)}
	for i := 0; i < 2; i++ {
		r, err := c.Annotate(context.Background(), req)
		if err != nil || string(r.JSON) != `{"title":"Report"}` {
			t.Fatalf("%+v %v", r, err)
		}
	}
	req.Schema = json.RawMessage(`{"type":"object","properties":{}}`)
	c.Annotate(context.Background(), req)
	if a.calls != 2 {
		t.Fatalf("calls %d, want 2", a.calls)
	}
}
