// Package retrieve is dir2mcp's search engine: hybrid retrieval over the
// full-text index (BM25) and the vector files, fused with weighted
// reciprocal rank fusion, with filters, routing between the text and code
// indexes, and hits shaped for citation (SPEC §9, §15.1.2).
package retrieve

import (
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// Index routing values (SPEC §9.1).
const (
	IndexAuto = "auto"
	IndexText = "text"
	IndexCode = "code"
	IndexBoth = "both"
)

// Channel modes: which retrieval channels a search uses. Hybrid is the
// default; the others exist for evaluation and debugging.
const (
	ModeHybrid  = "hybrid"
	ModeLexical = "lexical"
	ModeVector  = "vector"
)

// Fields a search can look in.
const (
	InBoth    = "both"    // titles, paths and content (default)
	InTitle   = "title"   // document titles and paths only
	InContent = "content" // chunk text only
)

// Request is one search.
type Request struct {
	Query      string
	K          int // 1..50; 0 = default 10
	Index      string
	PathPrefix string
	FileGlob   string
	DocTypes   []string
	Mode       string
	In         string // both | title | content
	// Explain fills Result.Candidates with every fused candidate and its
	// per-channel evidence (for evaluation and debugging; costs a read of
	// every candidate's span).
	Explain bool
}

// MaxK is the largest k a search accepts.
const MaxK = 50

// normalize validates r and fills defaults. Errors name the offending field.
func (r *Request) normalize() (*exclude.Pattern, error) {
	r.Query = strings.TrimSpace(r.Query)
	if r.Query == "" {
		return nil, errcode.FieldError(errcode.MissingField, "query", "query must not be empty")
	}
	if r.K == 0 {
		r.K = 10
	}
	if r.K < 1 || r.K > MaxK {
		return nil, errcode.FieldError(errcode.InvalidRange, "k", "k must be between 1 and %d, got %d", MaxK, r.K)
	}
	switch r.Index {
	case "":
		r.Index = IndexAuto
	case IndexAuto, IndexText, IndexCode, IndexBoth:
	default:
		return nil, errcode.FieldError(errcode.InvalidField, "index", "index must be one of auto, text, code, both; got %q", r.Index)
	}
	switch r.Mode {
	case "":
		r.Mode = ModeHybrid
	case ModeHybrid, ModeLexical, ModeVector:
	default:
		return nil, errcode.FieldError(errcode.InvalidField, "mode", "mode must be hybrid, lexical or vector; got %q", r.Mode)
	}
	switch r.In {
	case "":
		r.In = InBoth
	case InBoth, InTitle, InContent:
	default:
		return nil, errcode.FieldError(errcode.InvalidField, "in", "in must be title, content or both; got %q", r.In)
	}
	r.PathPrefix = strings.TrimPrefix(strings.TrimSpace(r.PathPrefix), "./")
	if strings.HasPrefix(r.PathPrefix, "/") || strings.Contains("/"+r.PathPrefix+"/", "/../") {
		return nil, errcode.FieldError(errcode.PathOutsideRoot, "path_prefix", "path_prefix must be relative to the root, got %q", r.PathPrefix)
	}
	for i, t := range r.DocTypes {
		if !knownDocType(t) {
			return nil, errcode.FieldError(errcode.InvalidField, "doc_types", "doc_types[%d]: unknown doc type %q (known: code, text, md, data, html, pdf, image, audio, archive)", i, t)
		}
	}
	if r.FileGlob == "" {
		return nil, nil
	}
	p, err := exclude.ParsePattern(r.FileGlob)
	if err != nil || p.Negate {
		if err == nil {
			err = errNegated
		}
		return nil, errcode.FieldError(errcode.InvalidField, "file_glob", "file_glob %q is not a valid glob: %v", r.FileGlob, err)
	}
	return p, nil
}

type negatedErr struct{}

func (negatedErr) Error() string { return `"!" negation is not allowed here` }

var errNegated = negatedErr{}

func knownDocType(t string) bool {
	switch t {
	case record.DocCode, record.DocText, record.DocMarkdown, record.DocData, record.DocHTML,
		record.DocPDF, record.DocImage, record.DocAudio, record.DocArchive:
		return true
	}
	return false
}
