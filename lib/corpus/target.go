package corpus

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/archive"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/scan"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Target is a document a client reads: a file under the root or a member
// of an archive ("docs.zip!/a/b.txt"), with what the index knows about it.
type Target struct {
	Rel string
	// Doc is the index's row; Known reports a live one.
	Doc   store.Doc
	Known bool
	// DocType is the indexed type, or after Read the type classified from
	// the name and first bytes ("" before that for an unknown document).
	DocType string
	// ArchiveRel and Member split a member's rel_path; ArchiveRel is empty
	// for a file.
	ArchiveRel, Member string
}

// Open checks rel (root confinement, the state directory, the config file,
// path excludes; for a member, its archive's path and its own) and looks
// the document up in the index. A document the index excluded for what its
// derived content revealed (a secret in a PDF's text, an image's OCR or an
// archive member), and an archive holding such a member, is FORBIDDEN. A
// path outside the scope ctx carries (see Scope) is OUT_OF_SCOPE.
func (a *Access) Open(ctx context.Context, rel string) (Target, error) {
	t := Target{}
	if ar, m, ok := archive.Split(rel); ok {
		clean, err := a.Check(ar)
		if err != nil {
			return t, err
		}
		for _, part := range strings.Split(m, archive.Sep) {
			if _, err := archive.CleanName(part); err != nil {
				return t, errcode.FieldError(errcode.InvalidField, "rel_path", "%s: %s", rel, errcode.As(err).Message)
			}
		}
		t.ArchiveRel, t.Member, t.Rel = clean, m, archive.Join(clean, m)
		for _, p := range []string{t.Rel, m} {
			if err := a.excluded(p, t.Rel); err != nil {
				return t, err
			}
		}
	} else {
		clean, err := a.Check(rel)
		if err != nil {
			return t, err
		}
		t.Rel = clean
	}
	return a.lookup(ctx, t)
}

// lookup checks t's scope and finds it in the index (the second half of
// Open).
func (a *Access) lookup(ctx context.Context, t Target) (Target, error) {
	if err := checkScope(ctx, t.Rel); err != nil {
		return t, err
	}
	d, ok, err := a.Store.Document(ctx, t.Rel)
	if err != nil {
		return t, err
	}
	t.Doc, t.Known, t.DocType = d, ok && !d.Deleted, d.DocType
	if !t.Known {
		t.DocType = ""
	}
	if t.Known && slices.Contains(securityCodes, d.ErrorCode) {
		return t, errcode.FieldError(errcode.Forbidden, "rel_path", "%s was excluded from the index (%s) and is not served", t.Rel, d.ErrorCode)
	}
	if t.ArchiveRel == "" {
		flagged, err := a.Store.FlaggedMember(ctx, t.Rel, securityCodes)
		if err != nil {
			return t, err
		}
		if flagged != "" {
			return t, errcode.FieldError(errcode.Forbidden, "rel_path", "%s holds %s, which was excluded from the index, and is not served whole", t.Rel, flagged)
		}
	}
	return t, nil
}

// Read returns t's bytes (at most max for a file, 0 = no limit; a member is
// read whole within the archive caps, then cut to max) and whether they
// were cut. An unknown document's DocType is classified from its name and
// first bytes.
func (a *Access) Read(ctx context.Context, t *Target, max int64) ([]byte, bool, error) {
	release, err := a.acquire(ctx)
	if err != nil {
		return nil, false, err
	}
	defer release()
	var data []byte
	truncated := false
	if t.ArchiveRel == "" {
		var err error
		if data, truncated, err = a.Root.ReadFile(t.Rel, max); err != nil {
			return nil, false, err
		}
	} else {
		var err error
		if data, err = a.readMember(ctx, t); err != nil {
			return nil, false, err
		}
		if max > 0 && int64(len(data)) > max {
			data, truncated = data[:max], true
		}
	}
	if t.DocType == "" {
		t.DocType, _ = scan.Classify(path.Base(t.Rel), data)
	}
	return data, truncated, nil
}

// readMember reads archive member t whole, within the archive caps, from
// an archive that is a regular file inside the root.
func (a *Access) readMember(ctx context.Context, t *Target) ([]byte, error) {
	f, _, err := a.Root.OpenFile(t.ArchiveRel)
	if err != nil {
		return nil, err
	}
	abs := f.Name()
	f.Close()
	return archive.ReadMember(ctx, abs, t.Member, a.Archives)
}
