package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

// The citation check goes through the real index, search and open_file:
// true citations pass, moved or backwards spans fail.
func TestCiterChecksThroughOpenFile(t *testing.T) {
	root := t.TempDir()
	*work = t.TempDir()
	var md strings.Builder
	for i := 0; i < 40; i++ {
		md.WriteString("filler line about nothing in particular\n")
	}
	md.WriteString("## Quokka habitat\n\nThe quokka lives on Rottnest Island and eats grasses.\n")
	os.WriteFile(filepath.Join(root, "animals.md"), []byte(md.String()), 0o644)
	cfg := config.Default()
	cfg.Ingest.Watch = false
	embs, err := embedders.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := openIndex("test", "orig", root, cfg, embs)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.close()
	ctx := context.Background()
	res, err := ix.eng.Search(ctx, retrieve.Request{Query: "quokka Rottnest grasses", K: 5, Mode: retrieve.ModeLexical})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search: %v %+v", err, res)
	}
	h := res.Hits[0]
	if ok, err := ix.cite.check(ctx, h); err != nil || !ok {
		t.Fatalf("true citation %+v rejected: %v %v", h.Span, ok, err)
	}
	moved := h
	moved.Span = record.Lines(1, 3)
	if ok, err := ix.cite.check(ctx, moved); err != nil || ok {
		t.Errorf("citation moved to filler lines accepted: %v %v", ok, err)
	}
	backwards := h
	backwards.Span = record.Lines(h.Span.EndLine+1, h.Span.StartLine)
	if ok, err := ix.cite.check(ctx, backwards); err != nil || ok {
		t.Errorf("backwards span accepted: %v %v", ok, err)
	}
}
