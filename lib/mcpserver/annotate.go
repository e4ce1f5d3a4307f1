package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/annotation"
	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

type annotateResult struct {
	RelPath          string          `json:"rel_path"`
	Stored           bool            `json:"stored"`
	FlattenedIndexed bool            `json:"flattened_indexed"`
	AnnotationJSON   json.RawMessage `json:"annotation_json"`
	Preview          string          `json:"annotation_text_preview,omitempty"`
	Provider         string          `json:"provider"`
	Model            string          `json:"model"`
}

var annotateParams = []param{
	str("rel_path", "document relative to the root: a PDF or image (Mistral document annotation) or any text, transcript or OCR'd file (chat model)").need(),
	object("schema_json", `JSON Schema of the fields to extract, e.g. {"type": "object", "properties": {"total": {"type": "number"}}}`).need(),
	boolean("index_flattened_text", "also index the result as key: value lines (annotation_text), so search finds it").withDefault(true),
}

func (s *Server) annotate(ctx context.Context, a *args) (toolOut, error) {
	rel, schemaJSON, index := a.str("rel_path"), a.object("schema_json"), a.boolean("index_flattened_text")
	t, err := s.access.Open(ctx, rel)
	if err != nil {
		return toolOut{}, err
	}
	data, truncated, err := s.access.Read(ctx, &t, maxOpenBytes)
	if err != nil {
		return toolOut{}, err
	}
	if truncated {
		return toolOut{}, errcode.FieldError(errcode.FileTooLarge, "rel_path", "%s is larger than %d MiB", t.Rel, maxOpenBytes>>20)
	}
	ann, doc, whole, err := s.annotationInput(ctx, t, data)
	if err != nil {
		return toolOut{}, err
	}
	res, err := ann.Annotate(ctx, annotation.Request{Document: doc, Schema: schemaJSON})
	if err != nil {
		return toolOut{}, err
	}
	flat, err := annotation.Flatten(res.JSON)
	if err != nil {
		return toolOut{}, err
	}
	if err := s.access.CheckSecret(t.Rel, []byte(flat)); err != nil {
		return toolOut{}, err
	}
	sum := sha256.Sum256(schemaJSON)
	meta, _ := json.Marshal(map[string]string{"provider": res.Provider, "model": res.Model, "schema_sha256": hex.EncodeToString(sum[:])})
	reps := indexer.AnnotationReps(s.Config, string(meta), string(res.JSON), flat, whole, index)
	var drop []string
	if !index {
		drop = []string{record.RepAnnotationText}
	}
	if err := s.storeReps(ctx, &t, data, reps, drop...); err != nil {
		return toolOut{}, err
	}
	preview, cut := clipText(flat, 1000)
	if cut {
		preview += "…"
	}
	out := annotateResult{RelPath: t.Rel, Stored: true, FlattenedIndexed: index, AnnotationJSON: res.JSON, Preview: preview,
		Provider: res.Provider, Model: res.Model}
	summary := fmt.Sprintf("Annotated %s with %s/%s (stored as annotation_json", t.Rel, res.Provider, res.Model)
	if index {
		summary += "; indexed as annotation_text"
	}
	return toolOut{out: out, summary: summary + "):\n" + preview, files: []string{t.Rel}}, nil
}

// annotationInput picks the annotator and input for t: the document itself
// for a PDF or image with Mistral document annotations; otherwise its text
// (file text, OCR pages, transcript) for the chat model. whole is the span
// annotation_text chunks cite: the whole document.
func (s *Server) annotationInput(ctx context.Context, t corpus.Target, data []byte) (annotation.Annotator, ocr.Document, record.Span, error) {
	p := s.Providers
	why := "no annotation model is configured"
	if p != nil && p.WhyNoAnnotate != "" {
		why = p.WhyNoAnnotate
	}
	var text string
	var whole record.Span
	switch t.DocType {
	case record.DocPDF, record.DocImage:
		whole = record.Page(1)
		if p != nil && p.DocAnnotator != nil {
			mime := ocr.MIMEByExt(t.Rel)
			if mime == "" {
				mime = http.DetectContentType(data)
			}
			return p.DocAnnotator, ocr.Document{Data: data, MIME: mime, Name: t.Rel}, whole, nil
		}
		c, err := s.repContent(ctx, t, record.RepOCRMarkdown, "rel_path", "OCR text")
		if err != nil {
			return nil, ocr.Document{}, whole, err
		}
		text = strings.ReplaceAll(c, indexer.PageSep, "\n\n")
	case record.DocAudio:
		tr := s.storedTranscript(ctx, t)
		if !t.Known || tr == nil {
			return nil, ocr.Document{}, whole, errcode.FieldError(errcode.DocTypeUnsupported, "rel_path", "%s has no transcript yet; run dir2mcp.transcribe first", t.Rel)
		}
		text, whole = tr.Text, record.Time(0, tr.DurationMs)
	case record.DocArchive, record.DocBinaryIgnored:
		return nil, ocr.Document{}, whole, errcode.FieldError(errcode.DocTypeUnsupported, "rel_path", "%s (doc_type %s) has no text to annotate", t.Rel, t.DocType)
	default:
		if err := s.access.CheckSecret(t.Rel, data); err != nil {
			return nil, ocr.Document{}, whole, err
		}
		res, err := extract.RawText(data, t.DocType)
		if err != nil {
			return nil, ocr.Document{}, whole, err
		}
		text = res.Text
		whole = record.Lines(1, max(1, strings.Count(strings.TrimRight(res.Text, "\n"), "\n")+1))
	}
	if p == nil || p.TextAnnotator == nil {
		return nil, ocr.Document{}, whole, unavailable(why)
	}
	if err := s.access.CheckSecret(t.Rel, []byte(text)); err != nil {
		return nil, ocr.Document{}, whole, err
	}
	return p.TextAnnotator, ocr.Document{Data: []byte(text), MIME: "text/plain", Name: t.Rel}, whole, nil
}
