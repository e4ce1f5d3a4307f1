package corpus

import (
	"bytes"
	"context"
	"io"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Limits of exact (byte range) reads.
const (
	// MaxRange is the most bytes one ReadRange returns.
	MaxRange = 1 << 20
	// wholeCheckBytes: documents up to this size are checked for secrets
	// whole before any range of them is returned.
	wholeCheckBytes = 1 << 20
	// secretMargin widens the secret check of a range in a larger
	// document on each side, so a secret the range cuts is still seen
	// whole (a PEM private key block is well under this).
	secretMargin = 16 << 10
)

// ReadRange returns up to length bytes of t from offset (fewer at the
// end) and the document's size. length must be in 1..MaxRange and offset
// at most the size (INVALID_RANGE naming the field otherwise), so nothing
// larger than MaxRange plus the check margins is ever allocated. The bytes
// returned pass the secret check: the whole document up to 1 MiB, else the
// range widened by 16 KiB each side, so no slicing slips a secret past it.
func (a *Access) ReadRange(ctx context.Context, t *Target, offset, length int64) ([]byte, int64, error) {
	if length < 1 || length > MaxRange {
		return nil, 0, errcode.OutOfRange("length", 1, MaxRange, length)
	}
	var ra io.ReaderAt
	var size int64
	if t.ArchiveRel == "" {
		f, fi, err := a.Root.OpenFile(t.Rel)
		if err != nil {
			return nil, 0, err
		}
		defer f.Close()
		ra, size = f, fi.Size()
	} else {
		data, err := a.readMember(ctx, t)
		if err != nil {
			return nil, 0, err
		}
		ra, size = bytes.NewReader(data), int64(len(data))
	}
	if offset < 0 || offset > size {
		return nil, size, errcode.FieldError(errcode.InvalidRange, "offset", "offset %d is past the end of %s (%d bytes)", offset, t.Rel, size)
	}
	end := min(size, offset+length)
	lo, hi := max(0, offset-secretMargin), min(size, end+secretMargin)
	if size <= wholeCheckBytes {
		lo, hi = 0, size
	}
	buf := make([]byte, hi-lo)
	if n, err := ra.ReadAt(buf, lo); int64(n) < hi-lo {
		return nil, size, errcode.Wrap(errcode.FileNotFound, err, "%s: short read at offset %d (the file changed?): %v", t.Rel, lo+int64(n), err)
	}
	if err := a.CheckSecret(t.Rel, buf); err != nil {
		return nil, size, err
	}
	return buf[offset-lo : end-lo], size, nil
}

// Stream returns a reader over all of t's bytes and its size, for
// digests: a regular file under the root, or an archive member read
// within the archive caps.
func (a *Access) Stream(ctx context.Context, t *Target) (io.ReadCloser, int64, error) {
	if t.ArchiveRel == "" {
		f, fi, err := a.Root.OpenFile(t.Rel)
		if err != nil {
			return nil, 0, err
		}
		return f, fi.Size(), nil
	}
	data, err := a.readMember(ctx, t)
	if err != nil {
		return nil, 0, err
	}
	return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
}
