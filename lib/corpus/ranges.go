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

// Range is what an exact read returns.
type Range struct {
	// Data are the bytes asked for (fewer at the end), credentials masked
	// byte for byte (Access.Redact).
	Data []byte
	// Size is the size of the whole document.
	Size int64
	// Masked counts the masked credentials Data shows (in part or whole).
	Masked int
}

// ReadRange returns up to length bytes of t from offset. length must be in
// 1..MaxRange and offset at most the size (INVALID_RANGE naming the field
// otherwise), so nothing larger than MaxRange plus the check margins is
// ever allocated. The bytes are read with a window around them — the whole
// document up to 1 MiB, else the range widened by 16 KiB each side — that
// passes the secret check and is masked (a.Redact, same length) before the
// range is cut out of it, so no slicing slips a secret past the check, nor
// a credential past the masking by cutting it in two.
func (a *Access) ReadRange(ctx context.Context, t *Target, offset, length int64) (Range, error) {
	if length < 1 || length > MaxRange {
		return Range{}, errcode.OutOfRange("length", 1, MaxRange, length)
	}
	release, err := a.acquire(ctx)
	if err != nil {
		return Range{}, err
	}
	defer release()
	var ra io.ReaderAt
	var size int64
	if t.ArchiveRel == "" {
		f, fi, err := a.Root.OpenFile(t.Rel)
		if err != nil {
			return Range{}, err
		}
		defer f.Close()
		ra, size = f, fi.Size()
	} else {
		data, err := a.readMember(ctx, t)
		if err != nil {
			return Range{}, err
		}
		ra, size = bytes.NewReader(data), int64(len(data))
	}
	if offset < 0 || offset > size {
		return Range{Size: size}, errcode.FieldError(errcode.InvalidRange, "offset", "offset %d is past the end of %s (%d bytes)", offset, t.Rel, size)
	}
	end := min(size, offset+length)
	lo, hi := max(0, offset-secretMargin), min(size, end+secretMargin)
	if size <= wholeCheckBytes {
		lo, hi = 0, size
	}
	buf := make([]byte, hi-lo)
	if n, err := ra.ReadAt(buf, lo); int64(n) < hi-lo {
		return Range{Size: size}, errcode.Wrap(errcode.FileNotFound, err, "%s: short read at offset %d (the file changed?): %v", t.Rel, lo+int64(n), err)
	}
	if err := a.CheckSecret(t.Rel, buf); err != nil {
		return Range{Size: size}, err
	}
	data, masked := a.Redact.MaskWindow(buf, int(offset-lo), int(end-lo))
	return Range{Data: data, Size: size, Masked: masked}, nil
}

// Stream returns a reader over all of t's bytes and its size, for
// digests: a regular file under the root, or an archive member read
// within the archive caps.
// The stream holds a read slot until it is closed.
func (a *Access) Stream(ctx context.Context, t *Target) (io.ReadCloser, int64, error) {
	release, err := a.acquire(ctx)
	if err != nil {
		return nil, 0, err
	}
	if t.ArchiveRel == "" {
		f, fi, err := a.Root.OpenFile(t.Rel)
		if err != nil {
			release()
			return nil, 0, err
		}
		return &releasing{ReadCloser: f, release: release}, fi.Size(), nil
	}
	data, err := a.readMember(ctx, t)
	release()
	if err != nil {
		return nil, 0, err
	}
	return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
}
