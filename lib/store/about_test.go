package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
)

// A store written by the previous schema (version 1) upgrades in place: its
// documents survive, the new columns read as empty, and the scan policy is
// forgotten so the next index run fills them.
func TestMigrateV1StoreInPlace(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open(driverName, filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		migrations[0],
		"PRAGMA user_version = 1",
		`INSERT INTO settings(key, value) VALUES ('scan_policy', 'abc'), ('corpus_id', 'c1')`,
		`INSERT INTO documents(rel_path, doc_type, size_bytes, mtime_unix, title) VALUES ('docs/a.md', 'md', 42, 7, 'A')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	ctx := context.Background()
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := s.ReadDB().QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion {
		t.Fatalf("user_version = %d (%v), want %d", v, err, SchemaVersion)
	}
	ls, err := s.Listings(ctx)
	if err != nil || len(ls) != 1 {
		t.Fatalf("listings after migration: %+v %v", ls, err)
	}
	if l := ls[0]; l.RelPath != "docs/a.md" || l.Title != "A" || l.SizeBytes != 42 || l.Description != "" || l.Tags != nil {
		t.Errorf("document after migration: %+v", l)
	}
	if p, _ := s.Setting(ctx, KeyScanPolicy); p != "" {
		t.Errorf("scan policy kept (%q): the next run would not fill descriptions", p)
	}
	if c, _ := s.Setting(ctx, KeyCorpusID); c != "c1" {
		t.Errorf("other settings lost: corpus_id=%q", c)
	}
	d, _, _ := s.Document(ctx, "docs/a.md")
	if err := s.Update(ctx, func(tx *Tx) error {
		return tx.SetDocumentAbout(d.DocID, "About A.", []string{"x", "y"})
	}); err != nil {
		t.Fatal(err)
	}
	ls, _ = s.Listings(ctx)
	if ls[0].Description != "About A." || !slices.Equal(ls[0].Tags, []string{"x", "y"}) {
		t.Errorf("about not stored: %+v", ls[0])
	}
}

func TestListingsSkipDeleted(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	err := s.Update(ctx, func(tx *Tx) error {
		for _, p := range []string{"b.txt", "a.txt", "gone.txt"} {
			if _, err := tx.UpsertDocument(doc(p), ""); err != nil {
				return err
			}
		}
		_, err := tx.TombstoneDocument("gone.txt")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := s.Listings(ctx)
	if err != nil || len(ls) != 2 || ls[0].RelPath != "a.txt" || ls[1].RelPath != "b.txt" {
		t.Fatalf("%+v %v", ls, err)
	}
	before, _ := s.ListingsFingerprint(ctx)
	if again, _ := s.ListingsFingerprint(ctx); again != before {
		t.Errorf("fingerprint not stable: %s %s", before, again)
	}
	s.Update(ctx, func(tx *Tx) error {
		id, _ := tx.DocumentID("a.txt")
		return tx.SetDocumentAbout(id, "now described", nil)
	})
	if after, _ := s.ListingsFingerprint(ctx); after == before {
		t.Error("fingerprint unchanged after a description changed")
	}
}
