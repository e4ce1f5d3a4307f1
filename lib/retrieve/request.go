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
	"slices"
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
	// Within limits hits to these rel_path prefixes (the caller's scope,
	// lib/corpus), applied in the index before ranking; nil = anywhere.
	Within   []string
	FileGlob string
	DocTypes []string
	Mode     string
	In       string // both | title | content
	// Explain fills Result.Candidates with every fused candidate and its
	// per-channel evidence (for evaluation and debugging; costs a read of
	// every candidate's span).
	Explain bool
	// Paged lets K reach MaxPagedK: a caller showing hits page by page
	// (search's cursor) ranks past MaxK and shows at most MaxK at a time.
	Paged bool
}

// MaxK is the largest k a search accepts, DefaultK the k of a request
// without one.
const (
	MaxK     = 50
	DefaultK = 10
	// MaxPagedK is the deepest hit a paged search reaches.
	MaxPagedK = 200
)

// The values a Request accepts: the single source of Request validation
// and of the search tools' input schemas (lib/mcpserver).
var (
	Indexes = []string{IndexAuto, IndexText, IndexCode, IndexBoth}
	Modes   = []string{ModeHybrid, ModeLexical, ModeVector}
	Ins     = []string{InBoth, InTitle, InContent}
	// DocTypes are the document types a search can filter on.
	DocTypes = []string{record.DocCode, record.DocText, record.DocMarkdown, record.DocData, record.DocHTML,
		record.DocPDF, record.DocImage, record.DocAudio, record.DocArchive}
)

// normalize validates r and fills defaults. Errors name the offending field.
func (r *Request) normalize() (*exclude.Pattern, error) {
	r.Query = strings.TrimSpace(r.Query)
	if r.Query == "" {
		return nil, errcode.FieldError(errcode.MissingField, "query", "query must not be empty")
	}
	if r.K == 0 {
		r.K = DefaultK
	}
	if hi := MaxK; r.K < 1 || r.K > hi && !(r.Paged && r.K <= MaxPagedK) {
		return nil, errcode.OutOfRange("k", 1, int64(hi), int64(r.K))
	}
	var err error
	if r.Index, err = oneOf("index", r.Index, Indexes); err != nil {
		return nil, err
	}
	if r.Mode, err = oneOf("mode", r.Mode, Modes); err != nil {
		return nil, err
	}
	if r.In, err = oneOf("in", r.In, Ins); err != nil {
		return nil, err
	}
	r.PathPrefix = strings.TrimPrefix(strings.TrimSpace(r.PathPrefix), "./")
	if strings.HasPrefix(r.PathPrefix, "/") || strings.Contains("/"+r.PathPrefix+"/", "/../") {
		return nil, errcode.FieldError(errcode.PathOutsideRoot, "path_prefix", "path_prefix must be relative to the root, got %q", r.PathPrefix)
	}
	for _, t := range r.DocTypes {
		if !slices.Contains(DocTypes, t) {
			return nil, errcode.NotOneOf("doc_types", t, DocTypes)
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

// oneOf returns v, or allowed[0] (the default) when v is empty.
func oneOf(field, v string, allowed []string) (string, error) {
	switch {
	case v == "":
		return allowed[0], nil
	case !slices.Contains(allowed, v):
		return "", errcode.NotOneOf(field, v, allowed)
	}
	return v, nil
}
