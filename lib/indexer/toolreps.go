package indexer

import (
	"context"
	"os"
	"slices"

	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Representations made on demand by a tool (dir2mcp.transcribe,
// dir2mcp.annotate) outside an indexing run.

// ToolDoc is the document a tool stores representations for.
type ToolDoc struct {
	RelPath string
	DocType string
	// Row is the index's row, when Known.
	Row   store.Doc
	Known bool
	// Member marks an archive member (it has no file of its own).
	Member bool
}

// Rep is a representation with its chunks.
type Rep struct {
	Input  store.RepInput
	Chunks []store.ChunkInput
}

// repTypes are every representation type a document may hold.
var repTypes = []string{record.RepRawText, record.RepOCRMarkdown, record.RepTranscript, record.RepAnnotationJSON, record.RepAnnotationText}

// StoreReps writes reps for d, and drops d's representations of the types
// in drop, in one transaction. A document the index does not know yet
// gets its row (size and content hash of data, the file's mtime); one that
// waited for a provider is marked ok. It returns how many chunks were
// added: they await embedding.
func StoreReps(ctx context.Context, st *store.Store, root *rootfs.Root, d ToolDoc, data []byte, reps []Rep, drop ...string) (int, error) {
	added := 0
	err := st.Update(ctx, func(tx *store.Tx) error {
		added = 0
		id := d.Row.DocID
		if !d.Known {
			doc := record.NewDocument()
			doc.Root, doc.RelPath, doc.DocType = root.Dir(), d.RelPath, d.DocType
			doc.SourceType, doc.Status, doc.Change = record.SourceFile, record.StatusOK, record.ChangeNew
			if d.Member {
				doc.SourceType = record.SourceArchiveMember
			} else if abs, err := root.Resolve(d.RelPath); err == nil {
				if fi, err := os.Stat(abs); err == nil {
					doc.MtimeUnix, doc.MtimeNs = fi.ModTime().Unix(), fi.ModTime().UnixNano()
				}
			}
			doc.SizeBytes, doc.ContentHash = int64(len(data)), cache.ContentHash(data)
			var err error
			if id, err = tx.UpsertDocument(doc, ""); err != nil {
				return err
			}
		} else if d.Row.Status != record.StatusOK {
			if err := tx.SetDocumentStatus(id, record.StatusOK, "", ""); err != nil {
				return err
			}
		}
		ref := store.DocRef{DocID: id, RelPath: d.RelPath, Title: d.Row.Title, DocType: d.DocType, Lang: d.Row.Lang}
		for _, rep := range reps {
			res, err := tx.ReplaceRepresentation(ref, rep.Input, rep.Chunks)
			if err != nil {
				return err
			}
			added += len(res.Added)
		}
		if len(drop) == 0 {
			return nil
		}
		keep := slices.DeleteFunc(slices.Clone(repTypes), func(t string) bool { return slices.Contains(drop, t) })
		_, err := tx.DropRepresentations(id, keep...)
		return err
	})
	return added, err
}

// AnnotationReps builds what dir2mcp.annotate stores: the annotation JSON
// (annotation_json, not chunked) and, with index set, its flattened
// "key: value" text (annotation_text) chunked by size without overlap, each
// chunk citing whole (the document). meta is both representations'
// meta_json. Credentials in both are masked first (security.redact).
func AnnotationReps(cfg *config.Config, meta, jsonText, flat string, whole record.Span, index bool) []Rep {
	if r := masker(cfg); r.Enabled() {
		masked, _ := r.MaskJSON([]byte(jsonText))
		jsonText = string(masked)
		flat, _ = r.Mask(flat)
	}
	reps := []Rep{{Input: store.RepInput{Type: record.RepAnnotationJSON, Hash: annotationHash(meta, jsonText), MetaJSON: meta, Content: &jsonText}}}
	if !index {
		return reps
	}
	var cs []store.ChunkInput
	for _, p := range chunk.Text(flat, chunk.TextOptions{MaxChars: cfg.Chunking.MaxChars, OverlapChars: -1, MinChars: -1}) {
		cs = append(cs, chunkInput(p.Text, record.KindText, whole))
	}
	return append(reps, Rep{Input: store.RepInput{Type: record.RepAnnotationText, Hash: annotationHash(meta, flat), MetaJSON: meta, Content: &flat}, Chunks: cs})
}

func annotationHash(meta, content string) string { return contentHash(meta+"\x00", content) }
