package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResourceListChanged: while `up` keeps the index fresh, a file added
// to the directory becomes a resource with its extracted title and
// description, a removed one disappears, and each change reaches the
// client as notifications/resources/list_changed.
func TestResourceListChanged(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	srv := p.connect()
	p.wait("index_complete", 60*time.Second)

	changed := make(chan struct{}, 16)
	client := sdk.NewClient(&sdk.Implementation{Name: "list-changed", Version: "1"}, &sdk.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: srv.url,
		HTTPClient: &http.Client{Transport: bearerRT{srv.token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	resources := func() map[string]*sdk.Resource {
		m := map[string]*sdk.Resource{}
		for r, err := range cs.Resources(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			m[r.Name] = r
		}
		return m
	}
	before := resources()
	if r := before["README.md"]; r == nil || r.Title == "" || r.Description == "" || r.MIMEType != "text/markdown" || r.Size == 0 {
		t.Errorf("README.md resource: %+v", r)
	}
	time.Sleep(300 * time.Millisecond) // let the standalone SSE stream open

	writeFile(t, filepath.Join(dir, "notes", "solstice.md"), "---\ndescription: Heliostat calibration notes.\ntags: [optics]\n---\n# Solstice plan\n\nBody.\n")
	waitChanged := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(30 * time.Second):
			t.Fatalf("no notifications/resources/list_changed after %s", what)
		}
	}
	waitChanged("adding a file")
	var added *sdk.Resource
	for deadline := time.Now().Add(10 * time.Second); added == nil && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		added = resources()["notes/solstice.md"]
	}
	if added == nil || added.Title != "Solstice plan" || added.Description != "Heliostat calibration notes." ||
		!slices.Equal(anyStrings(added.Meta["tags"]), []string{"optics"}) {
		t.Fatalf("added resource: %+v", added)
	}
	for len(changed) > 0 {
		<-changed
	}
	if err := os.Remove(filepath.Join(dir, "notes", "solstice.md")); err != nil {
		t.Fatal(err)
	}
	waitChanged("removing a file")
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resources()["notes/solstice.md"] == nil {
			return
		}
	}
	t.Error("removed file is still a resource")
}

func anyStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			s, _ := x.(string)
			out = append(out, s)
		}
	}
	return out
}
