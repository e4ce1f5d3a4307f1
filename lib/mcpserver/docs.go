package mcpserver

import (
	"context"
	"path"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/archive"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/scan"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// target is a document a tool reads: a file under the root or a member of
// an archive ("docs.zip!/a/b.txt"), with what the index knows about it.
type target struct {
	rel     string
	doc     store.Doc
	known   bool // the index has a live row for it
	docType string
	// archiveRel and member split a member's rel_path; archiveRel is empty
	// for a file.
	archiveRel, member string
}

// target checks rel_path access (root confinement, the state directory,
// the config file, path excludes; for a member, its archive's path and
// its own) and looks the document up in the index.
func (s *Server) target(ctx context.Context, rel string) (target, error) {
	t := target{}
	if a, m, ok := archive.Split(rel); ok {
		clean, err := s.checkAccess(a)
		if err != nil {
			return t, err
		}
		for _, part := range strings.Split(m, archive.Sep) {
			if _, err := archive.CleanName(part); err != nil {
				return t, errcode.FieldError(errcode.InvalidField, "rel_path", "%s: %s", rel, errcode.As(err).Message)
			}
		}
		t.archiveRel, t.member, t.rel = clean, m, archive.Join(clean, m)
		for _, p := range []string{t.rel, m} {
			if pat, ok := s.Exclude.PathExcluded(p); ok {
				return t, errcode.FieldError(errcode.Forbidden, "rel_path", "%s is excluded by security.path_excludes (%s)", t.rel, pat)
			}
		}
	} else {
		clean, err := s.checkAccess(rel)
		if err != nil {
			return t, err
		}
		t.rel = clean
	}
	d, ok, err := s.Store.Document(ctx, t.rel)
	if err != nil {
		return t, err
	}
	t.doc, t.known, t.docType = d, ok && !d.Deleted, d.DocType
	if !t.known {
		t.docType = ""
	}
	// The index may know more than the raw bytes show: a secret found in a
	// PDF's text, an image's OCR or an archive member. Such documents, and
	// archives holding one, are never served (SPEC §17).
	if t.known && securityCodes[d.ErrorCode] {
		return t, errcode.FieldError(errcode.Forbidden, "rel_path", "%s was excluded from the index (%s) and is not served", t.rel, d.ErrorCode)
	}
	if t.archiveRel == "" {
		flagged, err := s.Store.FlaggedMember(ctx, t.rel, securityCodeList)
		if err != nil {
			return t, err
		}
		if flagged != "" {
			return t, errcode.FieldError(errcode.Forbidden, "rel_path", "%s holds %s, which was excluded from the index, and is not served whole", t.rel, flagged)
		}
	}
	return t, nil
}

// securityCodes are the document codes that mean "never show this".
var (
	securityCodeList = []string{string(errcode.SecretExcluded), string(errcode.PathExcluded), string(errcode.Forbidden)}
	securityCodes    = map[string]bool{securityCodeList[0]: true, securityCodeList[1]: true, securityCodeList[2]: true}
)

// read returns the target's bytes (at most max for a file; a member is
// read whole within the archive caps). An unknown document is classified
// from its name and first bytes.
func (s *Server) read(ctx context.Context, t *target, max int64) ([]byte, bool, error) {
	var data []byte
	truncated := false
	if t.archiveRel == "" {
		var err error
		if data, truncated, err = s.Root.ReadFile(t.rel, max); err != nil {
			return nil, false, err
		}
	} else {
		abs, err := s.Root.Resolve(t.archiveRel)
		if err != nil {
			return nil, false, err
		}
		if data, err = archive.ReadMember(ctx, abs, t.member, indexer.ArchiveLimits(s.Config)); err != nil {
			return nil, false, err
		}
		if max > 0 && int64(len(data)) > max {
			data, truncated = data[:max], true
		}
	}
	if t.docType == "" {
		t.docType, _ = scan.Classify(path.Base(t.rel), data)
	}
	return data, truncated, nil
}

// secretCheck refuses content that matches a secret pattern (SPEC §15.4:
// the exclusion engine runs on everything a tool returns).
func (s *Server) secretCheck(rel string, content []byte) error {
	if _, hit := s.Exclude.SecretMatch(content); hit {
		return errcode.FieldError(errcode.Forbidden, "rel_path", "%s matches a secret pattern (security.secret_patterns) and is not served", rel)
	}
	return nil
}
