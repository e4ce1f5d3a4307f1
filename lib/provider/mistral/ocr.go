package mistral

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"sort"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
	"github.com/dir2mcp/dir2mcp/lib/provider"
)

// ocrDocument is the "document" of POST /v1/ocr: a PDF as
// {type: "document_url", document_url: "data:application/pdf;base64,…"} or
// an image as {type: "image_url", image_url: "data:image/png;base64,…"}.
type ocrDocument struct {
	Type        string `json:"type"`
	DocumentURL string `json:"document_url,omitempty"`
	ImageURL    string `json:"image_url,omitempty"`
}

// ocrRequest is the POST /v1/ocr body (client-python ocrrequest.py:
// model, document, pages (0-based), include_image_base64,
// document_annotation_format, document_annotation_prompt).
type ocrRequest struct {
	Model              string          `json:"model"`
	Document           ocrDocument     `json:"document"`
	Pages              []int           `json:"pages,omitempty"`
	IncludeImageBase64 bool            `json:"include_image_base64"`
	AnnotationFormat   *responseFormat `json:"document_annotation_format,omitempty"`
	AnnotationPrompt   string          `json:"document_annotation_prompt,omitempty"`
}

// responseFormat is {type: "json_schema", json_schema: {name, schema,
// strict}} (client-python jsonschema.py; the schema field is named
// "schema" on the wire).
type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// ocrResponse is the reply: pages[{index (0-based), markdown, images,
// dimensions}], model, document_annotation (a JSON string), usage_info.
type ocrResponse struct {
	Model string `json:"model"`
	Pages []struct {
		Index    *int    `json:"index"`
		Markdown *string `json:"markdown"`
	} `json:"pages"`
	DocumentAnnotation *string `json:"document_annotation"`
}

// OCR is an ocr.Engine over POST /v1/ocr.
type OCR struct {
	c     *Client
	model string
}

var _ ocr.Engine = (*OCR)(nil)

// OCR returns the OCR engine for model (DefaultOCRModel when empty).
func (c *Client) OCR(model string) *OCR {
	if model == "" {
		model = DefaultOCRModel
	}
	return &OCR{c: c, model: model}
}

// Provider implements ocr.Engine.
func (o *OCR) Provider() string { return "mistral" }

// Model implements ocr.Engine.
func (o *OCR) Model() string { return o.model }

// OCR implements ocr.Engine: the document is sent inline as a base64 data
// URI and the pages come back in page order, numbered from 1.
func (o *OCR) OCR(ctx context.Context, d ocr.Document) (*ocr.Result, error) {
	req, err := o.request(d)
	if err != nil {
		return nil, err
	}
	var out ocrResponse
	preq := provider.Request{Path: "/v1/ocr", Op: "ocr"}
	if err := o.c.slow.PostJSON(ctx, preq, req, &out); err != nil {
		return nil, err
	}
	res := &ocr.Result{Provider: "mistral", Model: o.model}
	seen := map[int]bool{}
	for i, p := range out.Pages {
		if p.Index == nil || p.Markdown == nil {
			return nil, o.c.slow.Malformed(preq, "page %d lacks index or markdown", i)
		}
		n := *p.Index + 1
		if *p.Index < 0 || seen[n] {
			return nil, o.c.slow.Malformed(preq, "page index %d out of range or repeated", *p.Index)
		}
		seen[n] = true
		res.Pages = append(res.Pages, ocr.Page{Number: n, Markdown: *p.Markdown})
	}
	sort.Slice(res.Pages, func(i, j int) bool { return res.Pages[i].Number < res.Pages[j].Number })
	return res, nil
}

func (o *OCR) request(d ocr.Document) (*ocrRequest, error) {
	if len(d.Data) == 0 {
		return nil, errcode.New(errcode.OCRFailed, "mistral ocr: %s is empty", d.Name)
	}
	uri := "data:" + d.MIME + ";base64," + base64.StdEncoding.EncodeToString(d.Data)
	req := &ocrRequest{Model: o.model}
	switch {
	case d.IsPDF():
		req.Document = ocrDocument{Type: "document_url", DocumentURL: uri}
		for _, p := range d.Pages {
			if p < 1 {
				return nil, errcode.New(errcode.OCRFailed, "mistral ocr: page %d of %s is not a 1-based page number", p, d.Name)
			}
			req.Pages = append(req.Pages, p-1)
		}
	case len(d.MIME) > 6 && d.MIME[:6] == "image/":
		req.Document = ocrDocument{Type: "image_url", ImageURL: uri}
	default:
		return nil, errcode.New(errcode.DocTypeUnsupported, "mistral ocr: %s has media type %q, not a PDF or an image", d.Name, d.MIME)
	}
	return req, nil
}
