// Package record defines the NDJSON records exchanged between the pipeline
// stages, one versioned type per boundary:
//
//	document  scan    → extract   (one per file or archive member)
//	chunk     extract → embed     (one per chunk, with its representation)
//	event     any stage → logs/automation (progress, errors, lifecycle)
//
// Every record carries "type" and "v" ("MAJOR.MINOR"). Readers ignore unknown
// fields and reject a record whose major version they do not know. Minor
// versions only ever add fields. docs/pipeline.md shows an example of each.
package record

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Record type names, the value of the "type" field.
const (
	TypeDocument = "document"
	TypeChunk    = "chunk"
	TypeEvent    = "event"
	// TypeRepresentation and TypeVector travel only over NATS streams
	// (docs/scaling.md): a document's extraction, and a chunk's vector.
	TypeRepresentation = "representation"
	TypeVector         = "vector"
)

// Current versions written by this build. Major is what readers check.
const (
	DocumentVersion       = "1.0"
	ChunkVersion          = "1.0"
	EventVersion          = "1.0"
	RepresentationVersion = "1.0"
	VectorVersion         = "1.0"
	SupportedMajor        = 1
)

// Change says how a scanned document differs from what the state dir holds.
const (
	ChangeNew       = "new"
	ChangeModified  = "modified"
	ChangeUnchanged = "unchanged"
	ChangeDeleted   = "deleted"
)

// Document status, as stored in documents.status.
const (
	StatusOK      = "ok"
	StatusSkipped = "skipped"
	StatusError   = "error"
)

// Source types.
const (
	SourceFile          = "file"
	SourceArchiveMember = "archive_member"
)

// Document types (documents.doc_type).
const (
	DocCode          = "code"
	DocText          = "text"
	DocMarkdown      = "md"
	DocData          = "data"
	DocHTML          = "html"
	DocPDF           = "pdf"
	DocImage         = "image"
	DocAudio         = "audio"
	DocArchive       = "archive"
	DocBinaryIgnored = "binary_ignored"
)

// Representation types (representations.rep_type).
const (
	RepRawText        = "raw_text"
	RepOCRMarkdown    = "ocr_markdown"
	RepTranscript     = "transcript"
	RepAnnotationText = "annotation_text"
	RepAnnotationJSON = "annotation_json"
)

// Index kinds route a chunk to a vector file.
const (
	KindText = "text"
	KindCode = "code"
)

// Embedding status of a chunk.
const (
	EmbedPending = "pending"
	EmbedOK      = "ok"
	EmbedError   = "error"
)

// Document is emitted by scan, one per file (or archive member) under root,
// plus one per previously indexed path that no longer exists (Change=deleted).
type Document struct {
	Type       string `json:"type"`
	V          string `json:"v"`
	Root       string `json:"root"`        // absolute root the path is relative to
	RelPath    string `json:"rel_path"`    // slash-separated, relative to Root
	SourceType string `json:"source_type"` // file | archive_member
	DocType    string `json:"doc_type"`
	Lang       string `json:"lang,omitempty"` // language for code ("go", "python", ...)
	SizeBytes  int64  `json:"size_bytes"`
	MtimeUnix  int64  `json:"mtime_unix"` // seconds
	MtimeNs    int64  `json:"mtime_ns"`   // nanoseconds, for change detection
	// ContentHash is "sha256:<hex>" of the raw bytes; empty for deleted
	// documents and for documents skipped before being read.
	ContentHash string `json:"content_hash,omitempty"`
	Change      string `json:"change"` // new | modified | unchanged | deleted
	Status      string `json:"status"` // ok | skipped | error
	// Code and Reason explain a skipped or error status, e.g.
	// Code "FILE_TOO_LARGE", Reason "3.1 MB exceeds the 2 MB cap for code".
	Code   string `json:"code,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// NewDocument returns a Document with Type and V set.
func NewDocument() Document { return Document{Type: TypeDocument, V: DocumentVersion} }

// Chunk is emitted by extract for every chunk it creates or changes; embed
// consumes it. It carries its representation's identity and provenance.
type Chunk struct {
	Type      string `json:"type"`
	V         string `json:"v"`
	ChunkID   int64  `json:"chunk_id"` // vector label
	DocID     int64  `json:"doc_id"`
	RepID     int64  `json:"rep_id"`
	RelPath   string `json:"rel_path"`
	DocType   string `json:"doc_type"`
	Lang      string `json:"lang,omitempty"`
	RepType   string `json:"rep_type"`
	RepHash   string `json:"rep_hash"`
	Ordinal   int    `json:"ordinal"`
	IndexKind string `json:"index_kind"` // text | code
	Text      string `json:"text"`
	// Context is where the text sits in its document, e.g. the headings
	// above it ("Routes > Route options"); embedded with the text.
	Context   string `json:"context,omitempty"`
	TextHash  string `json:"text_hash"`
	TokensEst int    `json:"tokens_est"`
	Span      Span   `json:"span"`
	// EmbeddingStatus is pending for new text, ok when an identical text's
	// vector was kept.
	EmbeddingStatus string `json:"embedding_status"`
}

// NewChunk returns a Chunk with Type and V set.
func NewChunk() Chunk { return Chunk{Type: TypeChunk, V: ChunkVersion} }

// Vector is a chunk's embedding as an embed worker publishes it on a stream.
// Key identifies what was embedded (VectorKey), so any chunk with the same
// input takes the vector; RelPath, RepHash, Ordinal and TextHash name the
// chunk it was computed for.
type Vector struct {
	Type      string    `json:"type"`
	V         string    `json:"v"`
	Model     string    `json:"model"` // embedder ID, e.g. "hash-v1/512"
	IndexKind string    `json:"index_kind"`
	Key       string    `json:"key"`
	RelPath   string    `json:"rel_path"`
	RepHash   string    `json:"rep_hash"`
	Ordinal   int       `json:"ordinal"`
	TextHash  string    `json:"text_hash"`
	Vector    []float32 `json:"vector"`
}

// NewVector returns a Vector with Type and V set.
func NewVector() Vector { return Vector{Type: TypeVector, V: VectorVersion} }

// Span kinds.
const (
	SpanLines = "lines"
	SpanPage  = "page"
	SpanTime  = "time"
)

// Span is provenance for a citation: a line range, a page, or a time range.
// It marshals to exactly the fields of its kind (SPEC §15.1.1).
type Span struct {
	Kind      string
	StartLine int   // lines: 1-based, inclusive
	EndLine   int   // lines: inclusive
	Page      int   // page: 1-based
	StartMs   int64 // time
	EndMs     int64 // time
}

// Lines returns a lines span.
func Lines(start, end int) Span { return Span{Kind: SpanLines, StartLine: start, EndLine: end} }

// Page returns a page span.
func Page(n int) Span { return Span{Kind: SpanPage, Page: n} }

// Time returns a time span in milliseconds.
func Time(startMs, endMs int64) Span { return Span{Kind: SpanTime, StartMs: startMs, EndMs: endMs} }

// Start and End return the span's coordinates as stored in spans.start/end.
func (s Span) Start() int64 {
	switch s.Kind {
	case SpanLines:
		return int64(s.StartLine)
	case SpanPage:
		return int64(s.Page)
	default:
		return s.StartMs
	}
}

// End is the inclusive end coordinate (the page for page spans).
func (s Span) End() int64 {
	switch s.Kind {
	case SpanLines:
		return int64(s.EndLine)
	case SpanPage:
		return int64(s.Page)
	default:
		return s.EndMs
	}
}

// SpanFrom rebuilds a span from its stored kind and coordinates.
func SpanFrom(kind string, start, end int64) Span {
	switch kind {
	case SpanLines:
		return Lines(int(start), int(end))
	case SpanPage:
		return Page(int(start))
	default:
		return Time(start, end)
	}
}

type spanLines struct {
	Kind      string `json:"kind"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}
type spanPage struct {
	Kind string `json:"kind"`
	Page int    `json:"page"`
}
type spanTime struct {
	Kind    string `json:"kind"`
	StartMs int64  `json:"start_ms"`
	EndMs   int64  `json:"end_ms"`
}

// MarshalJSON writes only the fields of the span's kind.
func (s Span) MarshalJSON() ([]byte, error) {
	// json.Marshal of spanLines, spanPage and spanTime, written directly
	// (a search answer encodes one per hit).
	switch s.Kind {
	case SpanLines:
		b := append(make([]byte, 0, 48), `{"kind":"lines","start_line":`...)
		b = strconv.AppendInt(b, int64(s.StartLine), 10)
		b = strconv.AppendInt(append(b, `,"end_line":`...), int64(s.EndLine), 10)
		return append(b, '}'), nil
	case SpanPage:
		b := append(make([]byte, 0, 32), `{"kind":"page","page":`...)
		return append(strconv.AppendInt(b, int64(s.Page), 10), '}'), nil
	case SpanTime:
		b := append(make([]byte, 0, 56), `{"kind":"time","start_ms":`...)
		b = strconv.AppendInt(b, s.StartMs, 10)
		b = strconv.AppendInt(append(b, `,"end_ms":`...), s.EndMs, 10)
		return append(b, '}'), nil
	case "":
		return []byte("null"), nil
	}
	return nil, fmt.Errorf("record: unknown span kind %q", s.Kind)
}

// UnmarshalJSON reads any of the three span shapes.
func (s *Span) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = Span{}
		return nil
	}
	var raw struct {
		Kind      string `json:"kind"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
		Page      int    `json:"page"`
		StartMs   int64  `json:"start_ms"`
		EndMs     int64  `json:"end_ms"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	switch raw.Kind {
	case SpanLines, SpanPage, SpanTime:
	default:
		return fmt.Errorf("record: unknown span kind %q", raw.Kind)
	}
	*s = Span{Kind: raw.Kind, StartLine: raw.StartLine, EndLine: raw.EndLine, Page: raw.Page, StartMs: raw.StartMs, EndMs: raw.EndMs}
	return nil
}

// Event is one NDJSON log/automation line (SPEC §3.2).
type Event struct {
	Type  string         `json:"type"`
	V     string         `json:"v"`
	TS    string         `json:"ts"`    // RFC 3339 with milliseconds, UTC
	Level string         `json:"level"` // info | warn | error
	Event string         `json:"event"`
	Data  map[string]any `json:"data"`
}

// Event names (SPEC §3.2, plus stage lifecycle events).
const (
	EvIndexLoaded   = "index_loaded"
	EvServerStarted = "server_started"
	EvConnection    = "connection"
	EvScanProgress  = "scan_progress"
	EvEmbedProgress = "embed_progress"
	EvFileError     = "file_error"
	EvFatal         = "fatal"
	EvIndexDone     = "index_complete"
	EvNotice        = "notice"
	// EvIndexInterrupted replaces index_complete when a job stops before it
	// finishes; EvIndexResumed starts the run that picks it up.
	EvIndexInterrupted = "index_interrupted"
	EvIndexResumed     = "index_resumed"
	// EvIndexLocked: a server found another writer holding the index; it
	// keeps serving and indexes once the writer is done.
	EvIndexLocked = "index_locked"
	// EvRecordParked: a record on a NATS stream could not be read; it was
	// moved to the dead-letter subject (never acked silently, never retried).
	EvRecordParked = "record_parked"
)

// CheckVersion reports an error unless v is "MAJOR.MINOR" (or "MAJOR") with
// a major version this build reads.
func CheckVersion(recType, v string) error {
	major := v
	if i := strings.IndexByte(v, '.'); i >= 0 {
		major = v[:i]
	}
	n, err := strconv.Atoi(major)
	if err != nil || v == "" {
		return fmt.Errorf("record: %s record has invalid version %q (want \"%d.x\")", recType, v, SupportedMajor)
	}
	if n != SupportedMajor {
		return fmt.Errorf("record: %s record version %s is not supported by this build (reads major version %d); upgrade dir2mcp or regenerate the stream", recType, v, SupportedMajor)
	}
	return nil
}
