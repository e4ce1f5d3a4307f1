package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/dir2mcp/dir2mcp/lib/cite"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCitationsAreTrue is the citation property: random files of every text
// type (HTML hostile, minified and malformed included; CRLF, BOM, Latin-1
// and declared charsets) are indexed by the real pipeline into SQLite, then
// searched through the dir2mcp.search tool and the engine's lexical and
// vector modes. Every hit's span must run forwards, dir2mcp.open_file must
// accept it, and its snippet must be found in the opened lines by the cite
// rule (cite.Check), as a user checks a citation.
func TestCitationsAreTrue(t *testing.T) {
	corpus := newCiteCorpus(citeSeed())
	files := corpus.generate(6)
	s, cs, _ := newCiteServer(t, files)
	ctx := context.Background()

	type hit struct {
		RelPath string      `json:"rel_path"`
		DocType string      `json:"doc_type"`
		Snippet string      `json:"snippet"`
		Span    record.Span `json:"span"`
	}
	byType := map[string]int{}
	multiLine, elided := 0, 0
	check := func(query string, h hit) {
		t.Helper()
		byType[h.DocType]++
		sp := h.Span
		if sp.Kind != record.SpanLines || sp.StartLine < 1 || sp.EndLine < sp.StartLine {
			t.Fatalf("query %q: %s has span %+v", query, h.RelPath, sp)
		}
		if squeezed(h.Snippet) == "" {
			t.Errorf("query %q: %s:L%d-L%d has an empty snippet %q", query, h.RelPath, sp.StartLine, sp.EndLine, h.Snippet)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.open_file", Arguments: map[string]any{
			"rel_path": h.RelPath, "start_line": sp.StartLine, "end_line": sp.EndLine, "max_chars": 50000,
		}})
		if err != nil || res.IsError {
			t.Fatalf("query %q: open_file refuses %s:L%d-L%d: %v %+v", query, h.RelPath, sp.StartLine, sp.EndLine, err, res)
		}
		var o openResult
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &o); err != nil {
			t.Fatal(err)
		}
		if o.Truncated || o.Span == nil || *o.Span != sp {
			t.Fatalf("query %q: open_file %s:L%d-L%d returned span %+v, truncated %v", query, h.RelPath, sp.StartLine, sp.EndLine, o.Span, o.Truncated)
		}
		if !cite.Check(h.Snippet, o.Content, h.DocType) {
			t.Errorf("query %q: the snippet of %s:L%d-L%d is not in those lines\nsnippet: %q\nlines:   %q", query, h.RelPath, sp.StartLine, sp.EndLine, h.Snippet, o.Content)
		} else if !cite.Verify(files[h.RelPath], h.DocType, sp, h.Snippet) {
			t.Errorf("query %q: cite.Verify disagrees with open_file on %s:L%d-L%d", query, h.RelPath, sp.StartLine, sp.EndLine)
		}
		if sp.EndLine > sp.StartLine {
			multiLine++
		}
		if strings.Contains(h.Snippet, "…") {
			elided++
		}
	}

	const searches = 120
	for i := range searches {
		query := corpus.words(1 + i%3)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.search", Arguments: map[string]any{"query": query, "k": 10}})
		if err != nil || res.IsError {
			t.Fatalf("search %q: %v %+v", query, err, res)
		}
		var out struct{ Hits []hit }
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		for _, h := range out.Hits {
			check(query, h)
		}
		// The channels alone, filtered to each type in turn so every type
		// is searched: vector hits often match no query term.
		mode := []string{retrieve.ModeLexical, retrieve.ModeVector}[i%2]
		types := []string{record.DocHTML, record.DocCode, record.DocText, record.DocMarkdown, record.DocData}
		r, err := s.Engine.Search(ctx, retrieve.Request{Query: query, K: 5, Mode: mode, DocTypes: types[i%len(types) : i%len(types)+1]})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range r.Hits {
			check(query, hit{RelPath: h.RelPath, DocType: h.DocType, Snippet: h.Snippet, Span: h.Span})
		}
	}
	// The extractive answers of dir2mcp.ask quote sentences of snippets,
	// each with its own citation: those are promises too.
	quotes := 0
	for i := range 30 {
		query := corpus.words(2 + i%2)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.ask", Arguments: map[string]any{"question": query, "k": 8}})
		if err != nil || res.IsError {
			t.Fatalf("ask %q: %v %+v", query, err, res)
		}
		var out struct {
			Answer string
			Hits   []hit
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		docType := map[string]string{}
		for _, h := range out.Hits {
			docType[h.RelPath] = h.DocType
		}
		for _, re := range []*regexp.Regexp{quotedProse, quotedCode} {
			for _, m := range re.FindAllStringSubmatch(out.Answer, -1) {
				g := func(name string) string { return m[re.SubexpIndex(name)] }
				start, _ := strconv.Atoi(g("a"))
				end, _ := strconv.Atoi(g("b"))
				quotes++
				check("ask: "+query, hit{RelPath: g("path"), DocType: docType[g("path")], Snippet: g("text"), Span: record.Lines(start, end)})
			}
		}
	}
	if quotes < 30 {
		t.Errorf("only %d quoted passages checked", quotes)
	}

	// The test means something only if it saw every type, joined lines and
	// cut snippets.
	for _, typ := range []string{record.DocHTML, record.DocCode, record.DocText, record.DocMarkdown, record.DocData} {
		if byType[typ] < 30 {
			t.Errorf("only %d %s hits checked", byType[typ], typ)
		}
	}
	if multiLine < 100 || elided < 5 {
		t.Errorf("%d multi-line spans and %d elided snippets checked", multiLine, elided)
	}
	t.Logf("checked hits by type %v (%d quoted by ask); %d multi-line, %d with an ellipsis", byType, quotes, multiLine, elided)
}

// quotedProse and quotedCode match the passages of an extractive answer
// with their citations: "- text [path:La-Lb]", or "[path:La-Lb]" over a
// fenced block of code.
var (
	quotedProse = regexp.MustCompile(`(?m)^- (?P<text>.*) \[(?P<path>[^\]\n]+?):L(?P<a>\d+)-L(?P<b>\d+)\]$`)
	quotedCode  = regexp.MustCompile("(?m)^\\[(?P<path>[^\\]\\n]+?):L(?P<a>\\d+)-L(?P<b>\\d+)\\]\n```\n(?P<text>(?s:.*?))\n```")
)

// An edit that only moves a page's text to other lines (here: a comment
// added to the head) moves its citations with it, though every chunk's
// text, and so its vector, is kept.
func TestCitationsFollowLineMoves(t *testing.T) {
	page := func(head string) []byte {
		var b strings.Builder
		b.WriteString("<html><head><title>Moves</title>" + head + "</head><body>\n")
		for i := range 40 {
			fmt.Fprintf(&b, "<h2>Part %d</h2>\n<p>Paragraph %d says\nsomething about <b>topic%d</b>.</p>\n", i, i, i)
		}
		b.WriteString("</body></html>\n")
		return []byte(b.String())
	}
	_, cs, update := newCiteServer(t, map[string][]byte{"m.html": page("")})
	find := func(word string) (record.Span, string) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dir2mcp.search", Arguments: map[string]any{"query": word, "k": 1}})
		if err != nil || res.IsError {
			t.Fatalf("search %q: %v %+v", word, err, res)
		}
		var out struct {
			Hits []struct {
				Snippet string
				Span    record.Span
			}
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil || len(out.Hits) != 1 {
			t.Fatalf("search %q: %s %v", word, b, err)
		}
		return out.Hits[0].Span, out.Hits[0].Snippet
	}
	before, snippet := find("topic31")
	update(map[string][]byte{"m.html": page("<!--\nfive\nnew\nlines\n-->")})
	after, snippet2 := find("topic31")
	if after.StartLine != before.StartLine+4 || after.EndLine != before.EndLine+4 || snippet2 != snippet {
		t.Errorf("span %+v then %+v (want moved by 4 lines); snippet %q then %q", before, after, snippet, snippet2)
	}
}

// citeSeed is the corpus seed: fixed, or CITE_SEED to explore others.
func citeSeed() uint64 {
	if s, err := strconv.ParseUint(os.Getenv("CITE_SEED"), 10, 64); err == nil {
		return s
	}
	return 20240611
}

// squeezed is s without whitespace and control characters.
func squeezed(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '…' {
			return -1
		}
		return r
	}, s)
}

// newCiteServer writes files to a temp root, indexes them with the real
// pipeline (offline hashing embedder) and serves them over an in-memory
// MCP transport. update writes files again and re-runs the index.
func newCiteServer(t *testing.T, files map[string][]byte) (s *Server, cs *mcp.ClientSession, update func(map[string][]byte)) {
	t.Helper()
	root := t.TempDir()
	write := func(files map[string][]byte) {
		for rel, body := range files {
			p := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(files)
	ctx := context.Background()
	cfg := config.Default()
	cfg.Server.RateLimit.ExpensiveRPS = 0 // ask as fast as the test goes
	dir := state.Resolve(root, "")
	if err := dir.Ensure(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h, _ := hashing.New(hashing.DefaultDim)
	embs := map[string]embed.Embedder{record.KindText: h, record.KindCode: h}
	index := func(files map[string][]byte) {
		job := &indexer.Job{Config: cfg, Root: root, Dir: dir, Store: st, Embedders: embs, Events: events.NewJSON(io.Discard)}
		if err := job.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if p := job.Progress.Snapshot(); p.Errors > 0 || p.Indexed != int64(len(files)) {
			t.Fatalf("indexed %d of %d files, %d errors", p.Indexed, len(files), p.Errors)
		}
	}
	index(files)
	eng := retrieve.Open(st, dir, cfg, embs, 0)
	t.Cleanup(eng.Close)
	eng.WaitLoaded()
	r, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	ex, _ := exclude.New(cfg.Security.PathExcludes, cfg.Security.SecretPatterns)
	s = &Server{Engine: eng, Store: st, Root: r, Dir: dir, Exclude: ex, Config: cfg}
	return s, connect(t, s), func(files map[string][]byte) { write(files); index(files) }
}
