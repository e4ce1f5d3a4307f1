package store

import (
	"context"
	"slices"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

func TestDropRepresentationsAndRepChunks(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	put(t, s, "a.pdf", "h1", "page one", "page two")
	var id int64
	content := `{"title":"x"}`
	err := s.Update(ctx, func(tx *Tx) error {
		var err error
		if id, err = tx.DocumentID("a.pdf"); err != nil {
			return err
		}
		ref := DocRef{DocID: id, RelPath: "a.pdf", DocType: record.DocPDF}
		if _, err := tx.ReplaceRepresentation(ref, RepInput{Type: record.RepAnnotationJSON, Hash: "j", Content: &content}, nil); err != nil {
			return err
		}
		_, err = tx.ReplaceRepresentation(ref, RepInput{Type: record.RepAnnotationText, Hash: "t"}, chunks("title: x"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := s.RepChunkIDs(ctx, id, record.RepRawText)
	if err != nil || len(ids) != 2 {
		t.Fatalf("raw_text chunks %v %v", ids, err)
	}
	var n int
	err = s.Update(ctx, func(tx *Tx) error {
		n, err = tx.DropRepresentations(id, record.RepRawText, record.RepAnnotationJSON)
		return err
	})
	if err != nil || n != 1 {
		t.Fatalf("dropped %d chunks: %v", n, err)
	}
	if _, _, ok, _ := s.RepContent(ctx, id, record.RepAnnotationJSON); !ok {
		t.Error("kept representation dropped")
	}
	if ids, _ := s.RepChunkIDs(ctx, id, record.RepAnnotationText); len(ids) != 0 {
		t.Errorf("dropped representation still has chunks %v", ids)
	}
	if ids, _ := s.RepChunkIDs(ctx, id, record.RepRawText); len(ids) != 2 {
		t.Errorf("kept representation lost chunks: %v", ids)
	}
}

func TestArchiveMembersAndStatus(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	for _, p := range []string{"a.zip", "a.zip!/x.txt", "a.zip!/in.tar!/y.txt", "a.zipper.txt", "b.zip!/z.txt"} {
		put(t, s, p, "h", "text of "+p)
	}
	var live []string
	var removed int
	err := s.Update(ctx, func(tx *Tx) error {
		var err error
		if live, err = tx.LiveMembers("a.zip"); err != nil {
			return err
		}
		removed, err = tx.TombstoneMembers("a.zip")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(live)
	if !slices.Equal(live, []string{"a.zip!/in.tar!/y.txt", "a.zip!/x.txt"}) || removed != 2 {
		t.Errorf("members %v, %d chunks removed", live, removed)
	}
	for p, deleted := range map[string]bool{"a.zip": false, "a.zip!/x.txt": true, "a.zipper.txt": false, "b.zip!/z.txt": false} {
		if d, _, _ := s.Document(ctx, p); d.Deleted != deleted {
			t.Errorf("%s deleted=%v", p, d.Deleted)
		}
	}
	err = s.Update(ctx, func(tx *Tx) error {
		id, _ := tx.DocumentID("a.zipper.txt")
		if err := tx.SetDocumentStatus(id, record.StatusSkipped, "AWAITING_PROVIDER", "needs OCR"); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.WaitingDocuments(ctx)
	if err != nil || len(w) != 1 || w[0].Reason != "needs OCR" || w[0].Count != 1 {
		t.Errorf("waiting %+v %v", w, err)
	}
	s.Update(ctx, func(tx *Tx) error {
		id, _ := tx.DocumentID("a.zipper.txt")
		return tx.SetDocumentStatus(id, record.StatusOK, "AWAITING_PROVIDER", "needs OCR")
	})
	if d, _, _ := s.Document(ctx, "a.zipper.txt"); d.Status != record.StatusOK || d.ErrorCode != "" || d.Error != "" {
		t.Errorf("ok status keeps a reason: %+v", d)
	}
}
