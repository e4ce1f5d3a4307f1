package grep

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

// StoreSource is the Source of a dir2mcp index: the successfully indexed
// documents that have text, as the index holds it. Code, text, markdown
// and data are rebuilt from their stored chunks, each document once, and
// checked against the representation's hash; when they cannot be rebuilt
// exactly (a line split into parts, a whitespace-only line) the file is
// read and extracted again, as it is for HTML, whose line map the index
// does not keep. PDF and image pages and transcripts are read from the
// stored representation.
type StoreSource struct {
	Store *store.Store
	// Access applies the current exclusions (documents excluded since
	// indexing are not offered) and reads files when needed.
	Access *corpus.Access
	// Config gives the chunking the stored hashes were made with.
	Config *config.Config
}

// repOf is the representation grep reads for each document type.
var repOf = map[string]string{
	record.DocCode: record.RepRawText, record.DocText: record.RepRawText, record.DocMarkdown: record.RepRawText,
	record.DocData: record.RepRawText, record.DocHTML: record.RepRawText,
	record.DocPDF: record.RepOCRMarkdown, record.DocImage: record.RepOCRMarkdown,
	record.DocAudio: record.RepTranscript,
}

// DocTypes are the document types grep searches.
var DocTypes = []string{record.DocCode, record.DocText, record.DocMarkdown, record.DocData, record.DocHTML,
	record.DocPDF, record.DocImage, record.DocAudio}

// maxFileRead bounds a file read when stored text cannot be used.
const maxFileRead = 64 << 20

// Generation is the store's content generation.
func (s *StoreSource) Generation(ctx context.Context) (int64, error) {
	g, err := s.Store.Generation(ctx)
	return int64(g), err
}

// Refs lists the documents with text the current exclusions allow.
func (s *StoreSource) Refs(ctx context.Context) ([]Ref, error) {
	reps, err := s.Store.TextReps(ctx, []string{record.RepRawText, record.RepOCRMarkdown, record.RepTranscript})
	if err != nil {
		return nil, err
	}
	var out []Ref
	for _, r := range reps {
		if repOf[r.DocType] != r.RepType || !s.Access.Listable(r.RelPath, r.ErrorCode) {
			continue
		}
		out = append(out, Ref{RelPath: r.RelPath, DocType: r.DocType, Key: r.RepType + ":" + r.RepHash, ID: r.RepID, Kind: r.RepType})
	}
	return out, nil
}

// Load reads the texts of refs.
func (s *StoreSource) Load(ctx context.Context, refs []Ref, fn func(Ref, Text) error) error {
	texts := make(map[int64]Text, len(refs))
	var chunked, stored []int64
	byID := map[int64]Ref{}
	for _, r := range refs {
		byID[r.ID] = r
		switch {
		case r.Kind == record.RepRawText && r.DocType != record.DocHTML:
			chunked = append(chunked, r.ID)
		case r.Kind != record.RepRawText:
			stored = append(stored, r.ID)
		}
	}
	err := s.Store.RepChunks(ctx, chunked, func(id int64, cs []store.RepChunk) error {
		if body, ok := s.rebuild(byID[id], cs); ok {
			texts[id] = Text{Body: body}
		}
		return nil
	})
	if err != nil {
		return err
	}
	contents, err := s.Store.RepContents(ctx, stored)
	if err != nil {
		return err
	}
	for id, c := range contents {
		if t, ok := storedText(byID[id].Kind, c); ok {
			texts[id] = t
		}
	}
	for _, r := range refs {
		t, ok := texts[r.ID]
		if !ok && r.Kind == record.RepRawText {
			t, ok = s.readFile(ctx, r)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if ok {
			if err := fn(r, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// rebuild joins a raw_text representation's chunks and checks the result
// against its hash.
func (s *StoreSource) rebuild(r Ref, cs []store.RepChunk) (string, bool) {
	pieces := make([]chunk.Piece, len(cs))
	for i, c := range cs {
		pieces[i] = chunk.Piece{Text: c.Text, Span: c.Span, Ordinal: i}
	}
	body, ok := chunk.Join(pieces)
	if !ok || s.Config == nil {
		return "", false
	}
	want := strings.TrimPrefix(r.Key, record.RepRawText+":")
	if indexer.RawTextHash(s.Config, r.DocType, body+"\n") == want || indexer.RawTextHash(s.Config, r.DocType, body) == want {
		return body, true
	}
	return "", false
}

// readFile extracts a document's text from its file, through the access
// policy (exclusions, confinement, secrets), for every caller alike, with
// its credentials masked as indexing masks them: grep never matches (nor
// finds by trial and error) what the results could not show.
func (s *StoreSource) readFile(ctx context.Context, r Ref) (Text, bool) {
	ctx = corpus.WithScope(ctx, nil) // the index is shared; callers' scopes filter results
	t, err := s.Access.Open(ctx, r.RelPath)
	if err != nil {
		return Text{}, false
	}
	data, cut, err := s.Access.Read(ctx, &t, maxFileRead)
	if err != nil || cut || s.Access.CheckSecret(r.RelPath, data) != nil {
		return Text{}, false
	}
	res, err := indexer.RawText(s.Config, data, r.DocType) // masked as the index is
	if err != nil {
		return Text{}, false
	}
	return Text{Body: strings.TrimSuffix(res.Text, "\n"), Map: res.Map}, true
}

// storedText reads a stored representation: OCR pages (cited by page) or
// a transcript (cited by time).
func storedText(kind, content string) (Text, bool) {
	switch kind {
	case record.RepOCRMarkdown:
		var b strings.Builder
		var starts []int
		lines := 0
		for _, page := range strings.Split(content, indexer.PageSep) {
			starts = append(starts, lines)
			page = strings.TrimSuffix(page, "\n")
			if page == "" {
				continue
			}
			if lines > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(page)
			lines += strings.Count(page, "\n") + 1
		}
		return Text{Body: b.String(), PageStarts: starts}, true
	case record.RepTranscript:
		var tr transcript.Transcript
		if err := json.Unmarshal([]byte(content), &tr); err != nil {
			return Text{}, false
		}
		if !tr.Timestamps || len(tr.Segments) == 0 {
			return Text{Body: strings.TrimSuffix(tr.Text, "\n"), Uncited: true}, true
		}
		segs := make([]string, len(tr.Segments))
		times := make([]record.Span, len(tr.Segments))
		for i, g := range tr.Segments {
			segs[i] = strings.ReplaceAll(g.Text, "\n", " ")
			times[i] = record.Time(g.StartMs, g.EndMs)
		}
		return Text{Body: strings.Join(segs, "\n"), Times: times}, true
	}
	return Text{}, false
}
