package annotation

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/chat"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// ChatAnnotator extracts structured data from text documents (code, notes,
// transcripts, OCR text) with a chat model: the schema and the text go in
// the prompt, and the reply must be one JSON object.
type ChatAnnotator struct {
	Chat     chat.Chatter
	Name     string // provider name, e.g. "mistral"
	ModelID  string // chat model
	MaxChars int    // document text sent at most (default 60000)
}

var _ Annotator = (*ChatAnnotator)(nil)

// Provider implements Annotator.
func (a *ChatAnnotator) Provider() string { return a.Name }

// Model implements Annotator.
func (a *ChatAnnotator) Model() string { return a.ModelID }

const chatInstructions = `You extract structured data from a document.
Reply with one JSON object that conforms to the JSON Schema below and nothing else: no prose, no code fences.
Use only facts stated in the document; use null for fields the document does not state.`

// Annotate implements Annotator. req.Document.Data is the document's text.
func (a *ChatAnnotator) Annotate(ctx context.Context, req Request) (*Result, error) {
	var schema map[string]any
	if json.Unmarshal(req.Schema, &schema) != nil {
		return nil, errcode.FieldError(errcode.InvalidField, "schema_json", "the annotation schema must be a JSON object")
	}
	limit := a.MaxChars
	if limit <= 0 {
		limit = 60000
	}
	text := string(req.Document.Data)
	if len(text) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	var sys strings.Builder
	sys.WriteString(chatInstructions)
	sys.WriteString("\n\nJSON Schema:\n")
	sys.Write(req.Schema)
	if p := strings.TrimSpace(req.Prompt); p != "" {
		sys.WriteString("\n\nInstructions: " + p)
	}
	zero := 0.0
	resp, err := a.Chat.Chat(ctx, chat.Request{Model: a.ModelID, Temperature: &zero, Messages: []chat.Message{
		{Role: "system", Content: sys.String()},
		{Role: "user", Content: "Document " + req.Document.Name + ":\n\n" + text},
	}})
	if err != nil {
		return nil, err
	}
	obj, ok := jsonObject(resp.Text)
	if !ok {
		return nil, errcode.New(errcode.AnnotateFailed, "%s %s did not reply with a JSON object", a.Name, a.ModelID)
	}
	return &Result{Provider: a.Name, Model: a.ModelID, JSON: obj}, nil
}

// jsonObject finds the JSON object in a model reply, tolerating code
// fences and text around it.
func jsonObject(s string) (json.RawMessage, bool) {
	s = strings.TrimSpace(s)
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return nil, false
	}
	raw := []byte(s[i : j+1])
	var obj map[string]any
	if json.Unmarshal(raw, &obj) != nil {
		return nil, false
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return nil, false
	}
	return b.Bytes(), true
}
