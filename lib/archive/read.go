package archive

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// ReadMember returns the content of member (a Member.Path, nested ones
// included) of the archive at path, for open_file. It fails with
// FILE_NOT_FOUND when the archive has no such regular member, with
// FILE_TOO_LARGE past the limits, and as Walk does for a bad archive.
func ReadMember(ctx context.Context, path, member string, lim Limits) ([]byte, error) {
	lim = lim.normalized()
	if d := strings.Count(member, Sep) + 1; d > lim.MaxDepth {
		lim.MaxDepth = d
	}
	var (
		out    []byte
		found  bool
		reason *errcode.Error
	)
	err := Walk(ctx, path, lim, Visitor{
		File: func(m Member, r io.Reader) error {
			if m.Path != member {
				return nil
			}
			var b bytes.Buffer
			if _, err := io.Copy(&b, r); err != nil {
				return err
			}
			out, found = b.Bytes(), true
			return errStop
		},
		Skip: func(m Member, why *errcode.Error) {
			if m.Path == member {
				reason = why
			}
		},
	})
	if found {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if reason != nil {
		return nil, reason
	}
	return nil, errcode.New(errcode.FileNotFound, "archive: %s has no member %s", path, member)
}
