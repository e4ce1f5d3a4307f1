package indexer

import (
	"context"
	"fmt"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Prepared is a document's extraction as it travels between hosts (the
// `representation` record): what extract decided for it, its representation
// and chunks, and an archive's members. A writer applying it (Apply) stores
// exactly what an in-process extract would have stored.
type Prepared struct {
	Type        string          `json:"type"`
	V           string          `json:"v"`
	Action      string          `json:"action"` // replace | touch | tombstone | record
	Document    record.Document `json:"document"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Tags        []string        `json:"tags,omitempty"`
	Rep         *PreparedRep    `json:"rep,omitempty"`
	Chunks      []PreparedChunk `json:"chunks,omitempty"`
	Archive     bool            `json:"archive,omitempty"`
	Members     []Prepared      `json:"members,omitempty"`
	Notes       []PreparedNote  `json:"notes,omitempty"`
	// Object names the document's bytes in the stream's object store,
	// "<bucket>/<object>" (omitted when the workers read a shared path):
	// a replica keeps them to open files that are not on its host.
	Object string `json:"object,omitempty"`
	// Ref, set instead of everything but Action and Document, names the
	// full record in the object store ("<bucket>/<object>") when it is
	// larger than a stream message may be.
	Ref string `json:"ref,omitempty"`
}

// PreparedRep is a representation; Content is nil for raw_text (the text is
// the file's own).
type PreparedRep struct {
	Type    string  `json:"type"`
	Hash    string  `json:"hash"`
	Meta    string  `json:"meta,omitempty"`
	Content *string `json:"content,omitempty"`
}

// PreparedChunk is one chunk of a representation, in ordinal order.
type PreparedChunk struct {
	Text      string      `json:"text"`
	Context   string      `json:"context,omitempty"`
	TextHash  string      `json:"text_hash"`
	TokensEst int         `json:"tokens_est"`
	IndexKind string      `json:"index_kind"`
	Span      record.Span `json:"span"`
	Lines     srcmap.Map  `json:"lines,omitempty"`
}

// PreparedNote is a per-member problem reported as a file_error event.
type PreparedNote struct {
	RelPath string `json:"rel_path"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

var actionNames = map[action]string{actReplace: "replace", actTouch: "touch", actTombstone: "tombstone", actRecord: "record"}

// Prepare extracts one document outside any store (Read supplies its
// bytes). It returns false when ctx ended before the work was done.
func (x *Extractor) Prepare(ctx context.Context, d record.Document) (Prepared, bool, error) {
	if x.exclude == nil {
		if err := x.init(); err != nil {
			return Prepared{}, false, err
		}
	}
	r := x.prepare(ctx, job{doc: d})
	if r.act == actNone {
		return Prepared{}, false, nil
	}
	return toPrepared(r), true, nil
}

func toPrepared(r result) Prepared {
	p := Prepared{Type: record.TypeRepresentation, V: record.RepresentationVersion, Action: actionNames[r.act],
		Document: r.doc, Title: r.title, Description: r.about.Description, Tags: r.about.Tags, Archive: r.archive}
	if r.rep.Type != "" {
		p.Rep = &PreparedRep{Type: r.rep.Type, Hash: r.rep.Hash, Meta: r.rep.MetaJSON, Content: r.rep.Content}
	}
	for _, c := range r.pieces {
		p.Chunks = append(p.Chunks, PreparedChunk{Text: c.Text, Context: c.Context, TextHash: c.TextHash,
			TokensEst: c.TokensEst, IndexKind: c.IndexKind, Span: c.Span, Lines: c.Lines})
	}
	for _, m := range r.members {
		p.Members = append(p.Members, toPrepared(m))
	}
	for _, n := range r.notes {
		p.Notes = append(p.Notes, PreparedNote{RelPath: n.relPath, Code: string(n.err.Code), Message: n.err.Message})
	}
	return p
}

func fromPrepared(p Prepared) (result, error) {
	r := result{doc: p.Document, title: p.Title, about: extract.About{Title: p.Title, Description: p.Description, Tags: p.Tags},
		archive: p.Archive, act: actNone}
	for a, name := range actionNames {
		if name == p.Action {
			r.act = a
		}
	}
	if r.act == actNone {
		return r, fmt.Errorf("representation of %q: unknown action %q", p.Document.RelPath, p.Action)
	}
	if p.Rep != nil {
		r.rep = store.RepInput{Type: p.Rep.Type, Hash: p.Rep.Hash, MetaJSON: p.Rep.Meta, Content: p.Rep.Content}
	}
	for _, c := range p.Chunks {
		r.pieces = append(r.pieces, store.ChunkInput{Text: c.Text, Context: c.Context, TextHash: c.TextHash,
			TokensEst: c.TokensEst, IndexKind: c.IndexKind, Span: c.Span, Lines: c.Lines})
	}
	for _, m := range p.Members {
		mr, err := fromPrepared(m)
		if err != nil {
			return r, err
		}
		r.members = append(r.members, mr)
	}
	for _, n := range p.Notes {
		r.notes = append(r.notes, note{relPath: n.RelPath, err: errcode.New(errcode.Code(n.Code), "%s", n.Message)})
	}
	return r, nil
}

// ChunkRecords returns the chunk records of a prepared document and its members,
// as extract prints them, except that the ids are 0: a document extracted
// away from any store has none yet (each replica assigns its own).
func (p Prepared) ChunkRecords() []record.Chunk {
	var out []record.Chunk
	if p.Rep != nil && p.Action == "replace" {
		for i, c := range p.Chunks {
			rc := record.NewChunk()
			rc.RelPath, rc.DocType, rc.Lang = p.Document.RelPath, p.Document.DocType, p.Document.Lang
			rc.RepType, rc.RepHash, rc.Ordinal, rc.IndexKind = p.Rep.Type, p.Rep.Hash, i, c.IndexKind
			rc.Text, rc.Context, rc.TextHash, rc.TokensEst, rc.Span = c.Text, c.Context, c.TextHash, c.TokensEst, c.Span
			rc.EmbeddingStatus = record.EmbedPending
			out = append(out, rc)
		}
	}
	for _, m := range p.Members {
		out = append(out, m.ChunkRecords()...)
	}
	return out
}

// Apply stores prepared documents in one transaction, with InCommit; when
// that transaction fails, each document is stored alone (a bad one recorded
// as an error, like Run) and InCommit is not run: the caller repeats it.
// Out is called for the chunks it adds, with the ids this store gave them.
func (x *Extractor) Apply(ctx context.Context, ps []Prepared) error {
	if x.Progress == nil {
		x.Progress = &Progress{}
	}
	batch := make([]result, 0, len(ps))
	for _, p := range ps {
		r, err := fromPrepared(p)
		if err != nil {
			return errcode.Wrap(errcode.RecordInvalid, err, "%v", err)
		}
		batch = append(batch, r)
	}
	x.applying = len(batch)
	defer func() { x.applying = 0 }()
	return x.commit(ctx, batch)
}
