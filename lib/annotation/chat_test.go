package annotation

import (
	"context"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/chat"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
)

type replyChat struct {
	reply string
	got   []chat.Message
}

func (c *replyChat) Chat(_ context.Context, r chat.Request) (*chat.Response, error) {
	c.got = r.Messages
	return &chat.Response{Text: c.reply}, nil
}

func TestChatAnnotatorParsesFencedObject(t *testing.T) {
	c := &replyChat{reply: "Here you go:\n```json\n{\"invoice\": 4711,\n \"paid\": true}\n```"}
	a := &ChatAnnotator{Chat: c, Name: "mistral", ModelID: "m"}
	res, err := a.Annotate(context.Background(), Request{
		Document: ocr.Document{Data: []byte("Invoice 4711 was paid."), MIME: "text/plain", Name: "notes.md"},
		Schema:   []byte(`{"type":"object","properties":{"invoice":{"type":"integer"}}}`),
		Prompt:   "Be brief.",
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.JSON) != `{"invoice":4711,"paid":true}` || res.Provider != "mistral" || res.Model != "m" {
		t.Errorf("result %+v %s", res, res.JSON)
	}
	if !strings.Contains(c.got[0].Content, `"invoice"`) || !strings.Contains(c.got[0].Content, "Be brief.") ||
		!strings.Contains(c.got[1].Content, "Invoice 4711 was paid.") {
		t.Errorf("prompt lacks the schema, instructions or text: %+v", c.got)
	}
}

func TestChatAnnotatorRejectsProse(t *testing.T) {
	a := &ChatAnnotator{Chat: &replyChat{reply: "I cannot find an invoice."}, Name: "ollama", ModelID: "m"}
	_, err := a.Annotate(context.Background(), Request{Document: ocr.Document{Data: []byte("x")}, Schema: []byte(`{}`)})
	if errcode.Of(err) != errcode.AnnotateFailed {
		t.Errorf("got %v", err)
	}
	_, err = a.Annotate(context.Background(), Request{Document: ocr.Document{Data: []byte("x")}, Schema: []byte(`[1]`)})
	if errcode.Of(err) != errcode.InvalidField {
		t.Errorf("array schema: %v", err)
	}
}
