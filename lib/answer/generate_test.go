package answer

import (
	"context"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/chat"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

var mixedHits = []retrieve.Hit{
	{ChunkID: 7, RelPath: "docs/setup.md", DocType: record.DocMarkdown, Span: record.Lines(10, 24), Snippet: "Run make install."},
	{ChunkID: 8, RelPath: "report.pdf", DocType: record.DocPDF, Span: record.Page(3), Snippet: "Invoice 4711 was paid."},
	{ChunkID: 9, RelPath: "standup.wav", DocType: record.DocAudio, Span: record.Time(65000, 95500), Snippet: "Review the budget."},
}

func TestCheckCitationsKeepsOnlyRealOnes(t *testing.T) {
	ans := "Install with make [docs/setup.md:L12-L14] [sic]. The invoice was paid [report.pdf#p=3]; " +
		"the budget was reviewed [standup.wav@t=01:05-01:35]. Also [docs/setup.md:L30-L40] and [other.md:L1-L2]. " +
		"Again [report.pdf#p=3]. Wrong page [report.pdf#p=4]."
	out, cites := checkCitations(ans, mixedHits)
	for _, gone := range []string{"L30-L40", "other.md", "#p=4"} {
		if strings.Contains(out, gone) {
			t.Errorf("invented citation %s kept: %s", gone, out)
		}
	}
	if !strings.Contains(out, "[sic]") || !strings.Contains(out, "Also and.") || !strings.Contains(out, "Wrong page.") {
		t.Errorf("answer text damaged: %s", out)
	}
	want := []Citation{
		{ChunkID: 7, RelPath: "docs/setup.md", Span: record.Lines(12, 14)},
		{ChunkID: 8, RelPath: "report.pdf", Span: record.Page(3)},
		{ChunkID: 9, RelPath: "standup.wav", Span: record.Time(65000, 95500)},
	}
	if len(cites) != len(want) {
		t.Fatalf("citations %+v", cites)
	}
	for i := range want {
		if cites[i] != want[i] {
			t.Errorf("citation %d: %+v, want %+v", i, cites[i], want[i])
		}
	}
}

type recordingChat struct {
	reply string
	req   chat.Request
}

func (c *recordingChat) Chat(_ context.Context, r chat.Request) (*chat.Response, error) {
	c.req = r
	return &chat.Response{Text: c.reply}, nil
}

func emptyStore(t *testing.T) *store.Store {
	st, err := store.Open(context.Background(), t.TempDir(), store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestGeneratePromptAndBudget(t *testing.T) {
	chat := &recordingChat{reply: "It was paid [report.pdf#p=3] and reviewed [nowhere.md:L1-L1]."}
	long := strings.Repeat("budget line. ", 100)
	hits := append([]retrieve.Hit{}, mixedHits...)
	hits[2].Snippet = long
	a := &Asker{Engine: &retrieve.Engine{Store: emptyStore(t)}, Chat: chat, ChatModel: "m", SystemPrompt: "You are terse.", MaxContextChars: 200}
	ans, cites, err := a.generate(context.Background(), "was the invoice paid?", hits)
	if err != nil {
		t.Fatal(err)
	}
	if ans != "It was paid [report.pdf#p=3] and reviewed." || len(cites) != 1 || cites[0].ChunkID != 8 {
		t.Errorf("answer %q cites %+v", ans, cites)
	}
	sys, user := chat.req.Messages[0].Content, chat.req.Messages[1].Content
	if chat.req.Model != "m" || !strings.HasPrefix(sys, "You are terse.") || !strings.Contains(sys, NotInContext) {
		t.Errorf("system prompt %q", sys)
	}
	if !strings.Contains(user, "Question: was the invoice paid?") || !strings.Contains(user, "[report.pdf#p=3]\nInvoice 4711 was paid.") {
		t.Errorf("user message %q", user)
	}
	_, sources, _ := strings.Cut(user, "Sources:\n")
	if len(sources) > 200+20 {
		t.Errorf("sources take %d bytes, budget 200", len(sources))
	}
}

func TestGenerateEmptyReplySaysNotInContext(t *testing.T) {
	a := &Asker{Engine: &retrieve.Engine{Store: emptyStore(t)}, Chat: &recordingChat{reply: "[made-up.md:L1-L2]"}}
	ans, cites, err := a.generate(context.Background(), "q", mixedHits)
	if err != nil || ans != NotInContext || len(cites) != 0 {
		t.Errorf("%q %v %v", ans, cites, err)
	}
}

// A caller following progress hears when retrieval is done and the chat
// model starts; an extractive answer has no such step.
func TestAnswerReportsGenerationStart(t *testing.T) {
	var got []string
	progress := func(done float64, msg string) { got = append(got, msg) }
	a := &Asker{Engine: &retrieve.Engine{Store: emptyStore(t)}, Chat: &recordingChat{reply: "Paid [report.pdf#p=3]."}, ChatModel: "m", Progress: progress}
	if _, err := a.Answer(context.Background(), "paid?", mixedHits, true); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.Contains(got[0], "generating the answer with m") {
		t.Errorf("progress %q", got)
	}
	got = nil
	a.Chat = nil
	if _, err := a.Answer(context.Background(), "paid?", mixedHits, true); err != nil || len(got) != 0 {
		t.Errorf("extractive answer reported %q (%v)", got, err)
	}
}
