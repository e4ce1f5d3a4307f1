package indexer

import (
	"context"
	"sort"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// Drift is how the files under the root differ from the index: what an
// index run would add, re-extract and delete.
type Drift struct {
	Added    []DriftFile `json:"added"`
	Modified []DriftFile `json:"modified"`
	Deleted  []DriftFile `json:"deleted"`
}

// DriftFile is one file that drifted. Status, Code and Reason are the
// scan's verdict on it now (a file that now matches a secret pattern is
// modified, skipped SECRET_EXCLUDED).
type DriftFile struct {
	RelPath   string `json:"rel_path"`
	DocType   string `json:"doc_type,omitempty"`
	SizeBytes int64  `json:"size_bytes"`
	MtimeUnix int64  `json:"mtime_unix,omitempty"`
	Status    string `json:"status,omitempty"`
	Code      string `json:"code,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// Total is the number of files that drifted.
func (d Drift) Total() int { return len(d.Added) + len(d.Modified) + len(d.Deleted) }

// Diff scans the root as an index run would — same ignore rules, path
// excludes, secret patterns and size caps — and compares it with the
// index in.Store (read-only): a file whose size and mtime are unchanged is
// taken as unchanged, otherwise its content hash decides. It writes
// nothing.
func Diff(ctx context.Context, cfg *config.Config, in ScanInput) (Drift, error) {
	d := Drift{Added: []DriftFile{}, Modified: []DriftFile{}, Deleted: []DriftFile{}}
	_, err := Scan(ctx, cfg, in, func(doc record.Document) error {
		f := DriftFile{RelPath: doc.RelPath, DocType: doc.DocType, SizeBytes: doc.SizeBytes, MtimeUnix: doc.MtimeUnix,
			Status: doc.Status, Code: doc.Code, Reason: doc.Reason}
		switch doc.Change {
		case record.ChangeNew:
			d.Added = append(d.Added, f)
		case record.ChangeModified:
			d.Modified = append(d.Modified, f)
		case record.ChangeDeleted:
			d.Deleted = append(d.Deleted, DriftFile{RelPath: doc.RelPath, DocType: doc.DocType, Reason: doc.Reason})
		}
		return nil
	})
	for _, l := range [][]DriftFile{d.Added, d.Modified, d.Deleted} {
		sort.Slice(l, func(i, j int) bool { return l[i].RelPath < l[j].RelPath })
	}
	return d, err
}
