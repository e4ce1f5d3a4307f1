package indexer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"

	"github.com/dir2mcp/dir2mcp/lib/archive"
	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/scan"
)

// Archive expansion caps (SPEC §17): what one archive may expand to in
// all, and how many members it may hold. Each member is also capped by the
// size cap of its doc type (ingest.size_caps_mb, ingest.max_file_mb).
const (
	maxArchiveBytes   = 128 << 20
	maxArchiveMembers = 10000
)

// ArchiveLimits returns the expansion caps for cfg: ingest.archives.mode
// shallow reads only the top archive's members, deep also the members of
// archives inside it.
func ArchiveLimits(cfg *config.Config) archive.Limits {
	depth := 2
	if cfg.Ingest.Archives.Mode == "shallow" {
		depth = 1
	}
	caps := SizeCaps(cfg)
	member := caps("")
	for t := range cfg.Ingest.SizeCapsMB {
		member = max(member, caps(t))
	}
	if member <= 0 || member > maxArchiveBytes {
		member = maxArchiveBytes
	}
	return archive.Limits{MaxMembers: maxArchiveMembers, MaxMemberBytes: member, MaxTotalBytes: maxArchiveBytes, MaxDepth: depth}
}

// archiveRep expands an archive into archive_member documents, each
// classified, checked against the exclusion engine and size caps, and
// represented like a file of its type. A damaged or over-large archive is a
// per-document error; the members read before the problem are kept.
func (x *Extractor) archiveRep(ctx context.Context, r result, data []byte) result {
	if archive.FormatOf(r.doc.RelPath) == "" { // .gz, .bz2, .zst, .7z, .rar, ...: compressed, but not a supported archive
		return x.failed(r, record.StatusSkipped, errcode.DocTypeUnsupported,
			"compressed file not expanded: only zip, tar, tar.gz and tar.bz2 archives are read")
	}
	r.act, r.archive = actReplace, true
	err := archive.WalkReader(ctx, r.doc.RelPath, bytes.NewReader(data), int64(len(data)), ArchiveLimits(x.Config), archive.Visitor{
		File: func(m archive.Member, rd io.Reader) error {
			b, err := io.ReadAll(rd)
			if err != nil {
				return err
			}
			r.members = append(r.members, x.member(ctx, r.doc, m, b))
			return ctx.Err()
		},
		Skip: func(m archive.Member, why *errcode.Error) {
			if why.Code == errcode.Forbidden { // an unsafe name never becomes a rel_path
				r.notes = append(r.notes, note{r.doc.RelPath, why})
				return
			}
			mr := result{doc: memberDoc(r.doc, m, nil)}
			status := record.StatusSkipped
			if why.Code == errcode.ExtractFailed {
				status = record.StatusError
			}
			r.members = append(r.members, x.failed(mr, status, why.Code, why.Message))
		},
	})
	if err != nil && ctx.Err() == nil {
		e := errcode.As(err)
		return x.failed(r, record.StatusError, e.Code, e.Message)
	}
	return r
}

// memberDoc is the document record of an archive member.
func memberDoc(a record.Document, m archive.Member, data []byte) record.Document {
	d := record.NewDocument()
	d.Root, d.RelPath, d.SourceType = a.Root, archive.Join(a.RelPath, m.Path), record.SourceArchiveMember
	d.DocType, d.Lang = scan.Classify(path.Base(m.Path), data)
	d.SizeBytes = m.Size
	if data != nil {
		d.SizeBytes = int64(len(data))
		d.ContentHash = cache.ContentHash(data)
	}
	if !m.ModTime.IsZero() {
		d.MtimeUnix, d.MtimeNs = m.ModTime.Unix(), m.ModTime.UnixNano()
	}
	d.Change, d.Status = a.Change, record.StatusOK
	return d
}

// member applies the scan's checks to one member's bytes, then represents
// it like a file of its type.
func (x *Extractor) member(ctx context.Context, a record.Document, m archive.Member, data []byte) result {
	r := result{doc: memberDoc(a, m, data)}
	d := r.doc
	for _, p := range []string{d.RelPath, m.Path} {
		if pat, ok := x.exclude.PathExcluded(p); ok {
			return x.failed(r, record.StatusSkipped, errcode.PathExcluded, fmt.Sprintf("path matches security.path_excludes pattern %q", pat))
		}
	}
	if limit := SizeCaps(x.Config)(d.DocType); limit > 0 && d.SizeBytes > limit {
		return x.failed(r, record.StatusSkipped, errcode.FileTooLarge,
			fmt.Sprintf("%d bytes exceed the %d-byte cap for %s", d.SizeBytes, limit, d.DocType))
	}
	if df, ok := x.deferred[d.DocType]; ok {
		return x.failed(r, record.StatusSkipped, df.Code, df.Reason)
	}
	switch d.DocType {
	case record.DocCode, record.DocText, record.DocMarkdown, record.DocData, record.DocHTML:
		if idx, hit := x.exclude.SecretMatch(data); hit {
			return x.failed(r, record.StatusSkipped, errcode.SecretExcluded, fmt.Sprintf("content matches security.secret_patterns[%d]", idx))
		}
	}
	return x.represent(ctx, r, data)
}
