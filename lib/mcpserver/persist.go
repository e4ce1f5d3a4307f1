package mcpserver

import (
	"context"
	"os"

	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// storeReps writes representations made by a tool (a transcript, an
// annotation) for t, creating the document's row when the index does not
// know it yet and marking a document that waited for a provider ok. New
// chunks await embedding: Pending is told so the indexer embeds them.
func (s *Server) storeReps(ctx context.Context, t *target, data []byte, reps []store.RepInput, pieces [][]store.ChunkInput) error {
	added := 0
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		added = 0
		id := t.doc.DocID
		if !t.known {
			d := record.NewDocument()
			d.Root, d.RelPath, d.DocType = s.Root.Dir(), t.rel, t.docType
			d.SourceType, d.Status, d.Change = record.SourceFile, record.StatusOK, record.ChangeNew
			if t.archiveRel != "" {
				d.SourceType = record.SourceArchiveMember
			} else if abs, err := s.Root.Resolve(t.rel); err == nil {
				if fi, err := os.Stat(abs); err == nil {
					d.MtimeUnix, d.MtimeNs = fi.ModTime().Unix(), fi.ModTime().UnixNano()
				}
			}
			d.SizeBytes, d.ContentHash = int64(len(data)), cache.ContentHash(data)
			var err error
			if id, err = tx.UpsertDocument(d, ""); err != nil {
				return err
			}
		} else if t.doc.Status != record.StatusOK {
			if err := tx.SetDocumentStatus(id, record.StatusOK, "", ""); err != nil {
				return err
			}
		}
		ref := store.DocRef{DocID: id, RelPath: t.rel, Title: t.doc.Title, DocType: t.docType, Lang: t.doc.Lang}
		for i, rep := range reps {
			res, err := tx.ReplaceRepresentation(ref, rep, pieces[i])
			if err != nil {
				return err
			}
			added += len(res.Added)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !t.known {
		if d, ok, err := s.Store.Document(ctx, t.rel); err == nil && ok {
			t.doc, t.known = d, true
		}
	}
	if added > 0 && s.Pending != nil {
		s.Pending()
	}
	return nil
}
