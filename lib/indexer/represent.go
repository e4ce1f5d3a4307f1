package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// prepare does the work for one document outside the writer: read it and
// build its representation (extract text, OCR, transcribe, expand an
// archive) and chunks.
func (x *Extractor) prepare(ctx context.Context, j job) result {
	d := j.doc
	r := result{seq: j.seq, doc: d}
	switch {
	case d.Change == record.ChangeDeleted:
		r.act = actTombstone
		return r
	case d.Change == record.ChangeUnchanged && !x.Force:
		// Skipped or failed as before: nothing to rewrite either.
		r.act = actTouch
		if x.Stored != nil && x.Stored(d) {
			r.act = actKeep
		}
		return r
	case d.Status != record.StatusOK && d.Status != "":
		r.act = actRecord
		return r
	}
	if df, ok := x.deferred[d.DocType]; ok {
		return x.failed(r, record.StatusSkipped, df.Code, df.Reason)
	}
	if d.DocType == record.DocBinaryIgnored {
		return x.failed(r, record.StatusSkipped, errcode.BinarySkipped, "binary file")
	}
	data, err := x.read(d)
	if err != nil {
		if errcode.Of(err) == errcode.FileNotFound {
			r.act = actTombstone // vanished between scan and extract
			return r
		}
		return x.failed(r, record.StatusError, errcode.Of(err), errcode.As(err).Message)
	}
	r.doc.ContentHash = cache.ContentHash(data)
	r.doc.SizeBytes = int64(len(data))
	return x.represent(ctx, r, data)
}

// read returns a document's bytes: from Read when set, else the file.
func (x *Extractor) read(d record.Document) ([]byte, error) {
	if x.Read != nil {
		return x.Read(d)
	}
	root, err := x.root(d.Root)
	if err != nil {
		return nil, err
	}
	data, _, err := root.ReadFile(d.RelPath, 0)
	return data, err
}

// represent builds the representation of a document's bytes by doc type.
// Provider failures become per-document errors; a cancelled context drops
// the document (nothing is written).
func (x *Extractor) represent(ctx context.Context, r result, data []byte) result {
	switch r.doc.DocType {
	case record.DocPDF:
		r = x.pdfRep(ctx, r, data)
	case record.DocImage:
		r = x.imageRep(ctx, r, data)
	case record.DocAudio:
		r = x.audioRep(ctx, r, data)
	case record.DocArchive:
		r = x.archiveRep(ctx, r, data)
	case record.DocBinaryIgnored:
		return x.failed(r, record.StatusSkipped, errcode.BinarySkipped, "binary file")
	default:
		return x.textRep(r, data)
	}
	if ctx.Err() != nil {
		r.act = actNone
	}
	return r
}

// textRep builds the raw_text representation of code, text, markdown,
// data and HTML.
func (x *Extractor) textRep(r result, data []byte) result {
	d := r.doc
	res, err := maskedRawText(x.redact, data, d.DocType)
	if err != nil {
		return x.failed(r, record.StatusError, errcode.ExtractFailed, errcode.As(err).Message)
	}
	kind := record.KindText
	var pieces []chunk.Piece
	ch := x.Config.Chunking
	if d.DocType == record.DocCode {
		kind = record.KindCode
		pieces = chunk.Code(res.Text, chunk.CodeOptions{
			MaxLines: ch.Code.MaxLines, OverlapLines: orNone(ch.Code.OverlapLines),
		})
	} else {
		pieces = chunk.Text(res.Text, textOptions(x.Config))
	}
	maps := chunk.Remap(pieces, res.Map)
	if maps != nil {
		// A piece of markup alone (a rule or a fence between a break and
		// an overlong paragraph) holds nothing to find or to quote.
		kept, keptMaps := pieces[:0], maps[:0]
		for i, p := range pieces {
			if maps[i].HasText(p.Text) {
				kept, keptMaps = append(kept, p), append(keptMaps, maps[i])
			}
		}
		pieces, maps = kept, keptMaps
	}
	r.act = actReplace
	r.about = extract.Describe(res, data, d.DocType, d.RelPath)
	maskAbout(x.redact, &r.about)
	r.title = r.about.Title
	r.rep = store.RepInput{
		Type:     record.RepRawText,
		Hash:     repHash(d.DocType, ch, res.Text, res.Map),
		MetaJSON: fmt.Sprintf(`{"encoding":%q,"extractor":%q}`, res.Encoding, extractorVersion),
	}
	r.pieces = make([]store.ChunkInput, len(pieces))
	for i, p := range pieces {
		r.pieces[i] = withContext(chunkInput(p.Text, kind, p.Span), p.Context)
		if maps != nil {
			r.pieces[i].Lines = maps[i]
		}
	}
	return r
}

func textOptions(cfg *config.Config) chunk.TextOptions {
	ch := cfg.Chunking
	return chunk.TextOptions{MaxChars: ch.MaxChars, OverlapChars: orNone(ch.OverlapChars), MinChars: orNone(ch.MinChars)}
}

// chunkInput is a chunk as the store takes it, with its full-text body
// made here (extract workers run in parallel; the store writer is one).
func chunkInput(text, kind string, sp record.Span) store.ChunkInput {
	return store.ChunkInput{Text: text, TextHash: chunk.TextHash(text), TokensEst: chunk.TokensEstimate(text), IndexKind: kind, Span: sp,
		IndexBody: lexical.IndexText(text)}
}

// withContext gives a chunk its place in the document (see
// chunk.Piece.Context). The context is part of what is embedded, so it is
// part of the hash that decides whether a chunk's vector can be kept.
func withContext(ci store.ChunkInput, context string) store.ChunkInput {
	if context != "" {
		ci.Context = context
		ci.TextHash = chunk.TextHash(context + "\x00" + ci.Text)
	}
	return ci
}

// orNone maps a configured 0 ("none") to the chunk package's "none" (-1);
// the chunk package reads 0 as "default".
func orNone(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// RawTextHash is the rep_hash the indexer gives the raw_text
// representation holding text for docType under cfg's chunking, for a
// document whose lines are the file's (not HTML): the same hash means the
// same text, so a reader can check text rebuilt from the stored chunks.
func RawTextHash(cfg *config.Config, docType, text string) string {
	return repHash(docType, cfg.Chunking, text, nil)
}

// repHash identifies a representation: its text, and where its lines came
// from (an edit that only moves HTML text to other lines moves its spans).
func repHash(docType string, ch config.ChunkingConfig, text string, m srcmap.Map) string {
	if m != nil {
		b, _ := json.Marshal(m) // cannot fail: integers only
		text += "\x00" + string(b)
	}
	return contentHash(fmt.Sprintf("%s\x00%s\x00%d/%d/%d/%d/%d\x00", extractorVersion, docType,
		ch.MaxChars, ch.OverlapChars, ch.MinChars, ch.Code.MaxLines, ch.Code.OverlapLines), text)
}

// contentHash is a representation's hash: "sha256:" and the hex SHA-256 of
// prefix (what else decides the chunks) followed by the content.
func contentHash(prefix, content string) string {
	h := sha256.New()
	io.WriteString(h, prefix)
	io.WriteString(h, content)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// secretIn reports whether derived text (OCR, a transcript) matches a
// secret pattern; such documents are excluded like files whose bytes match.
func (x *Extractor) secretIn(r result, text string) (result, bool) {
	if idx, hit := x.exclude.SecretMatch([]byte(text)); hit {
		return x.failed(r, record.StatusSkipped, errcode.SecretExcluded,
			fmt.Sprintf("recognised text matches security.secret_patterns[%d]", idx)), true
	}
	return r, false
}

// providerFailure records a failed OCR or transcription: a per-document
// error with the provider's code, retried by the next run.
func (x *Extractor) providerFailure(r result, what string, err error) result {
	e := errcode.As(err)
	return x.failed(r, record.StatusError, e.Code, what+": "+e.Message)
}
