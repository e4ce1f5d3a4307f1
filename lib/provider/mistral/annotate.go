package mistral

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/annotation"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider"
)

// Annotator is an annotation.Annotator over the OCR endpoint's document
// annotation: the request adds document_annotation_format {type:
// "json_schema", json_schema: {name, schema, strict: true}} and the reply's
// document_annotation is a JSON string filling the schema.
type Annotator struct {
	ocr *OCR
}

var _ annotation.Annotator = (*Annotator)(nil)

// Annotator returns the document annotator using OCR model model
// (DefaultOCRModel when empty).
func (c *Client) Annotator(model string) *Annotator { return &Annotator{ocr: c.OCR(model)} }

// Provider implements annotation.Annotator.
func (a *Annotator) Provider() string { return "mistral" }

// Model implements annotation.Annotator.
func (a *Annotator) Model() string { return a.ocr.model }

// Annotate implements annotation.Annotator. The schema must be a JSON
// object; the result must be a JSON object too.
func (a *Annotator) Annotate(ctx context.Context, r annotation.Request) (*annotation.Result, error) {
	var schema map[string]any
	if json.Unmarshal(r.Schema, &schema) != nil {
		return nil, errcode.FieldError(errcode.InvalidField, "schema_json", "the annotation schema must be a JSON object")
	}
	req, err := a.ocr.request(r.Document)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(r.Name)
	if name == "" {
		name = "annotation"
	}
	req.AnnotationFormat = &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{Name: name, Schema: r.Schema, Strict: true}}
	req.AnnotationPrompt = r.Prompt
	preq := provider.Request{Path: "/v1/ocr", Op: "annotation", FailCode: errcode.MistralFailed}
	var out ocrResponse
	if err := a.ocr.c.slow.PostJSON(ctx, preq, req, &out); err != nil {
		return nil, err
	}
	if out.DocumentAnnotation == nil {
		return nil, a.ocr.c.slow.Malformed(preq, "no document_annotation in the reply")
	}
	raw := json.RawMessage(*out.DocumentAnnotation)
	var obj map[string]any
	if json.Unmarshal(raw, &obj) != nil {
		return nil, a.ocr.c.slow.Malformed(preq, "document_annotation is not a JSON object")
	}
	return &annotation.Result{Provider: "mistral", Model: a.ocr.model, JSON: raw}, nil
}
