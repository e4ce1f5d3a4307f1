package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Member describes one archive member.
type Member struct {
	// Path is the member's clean path inside the archive; a member of a
	// nested archive has the nested archive's path, Sep, then its own
	// ("inner.tar.gz!/docs/a.txt"). Join(archiveRel, m.Path) is its rel_path.
	Path string
	// Size is the size the archive declares (-1 when unknown); the bytes
	// actually read are capped regardless.
	Size    int64
	ModTime time.Time
	// Depth is 1 for the top archive's members, 2 inside a nested one, ...
	Depth int
}

// Visitor receives an archive's members.
type Visitor struct {
	// File is called for each regular member, in archive order, with a
	// reader of its content: reading more than Limits.MaxMemberBytes fails
	// with FILE_TOO_LARGE, which skips the member (the walk goes on). Any
	// other error File returns stops the walk and is returned by Walk.
	File func(m Member, r io.Reader) error
	// Skip, when set, is told of each member not given to File and why:
	// FORBIDDEN (unsafe name), FILE_TOO_LARGE, DOC_TYPE_UNSUPPORTED (links,
	// devices, archives nested deeper than MaxDepth) or EXTRACT_FAILED (a
	// nested archive that cannot be read).
	Skip func(m Member, reason *errcode.Error)
}

// errStop ends a walk early without error (ReadMember found its member).
var errStop = errors.New("archive: stop")

// Walk reads the archive at path, whose format its name tells (FormatOf).
// It fails with DOC_TYPE_UNSUPPORTED for other names, EXTRACT_FAILED for a
// corrupt or truncated archive (members read before the damage were still
// visited), and FILE_TOO_LARGE when the archive holds more than MaxMembers
// members or expands to more than MaxTotalBytes.
func Walk(ctx context.Context, path string, lim Limits, v Visitor) error {
	f, err := os.Open(path)
	if err != nil {
		return errcode.Wrap(errcode.FileNotFound, err, "archive: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return errcode.Wrap(errcode.ExtractFailed, err, "archive: %v", err)
	}
	return WalkReader(ctx, path, f, st.Size(), lim, v)
}

// WalkReader is Walk over size bytes of r; name gives the format.
func WalkReader(ctx context.Context, name string, r io.ReaderAt, size int64, lim Limits, v Visitor) error {
	format := FormatOf(name)
	if format == "" {
		return errcode.New(errcode.DocTypeUnsupported, "archive: %s is not a zip, tar, tar.gz or tar.bz2 file", name)
	}
	w := &walker{ctx: ctx, lim: lim.normalized(), v: v}
	var err error
	if format == Zip {
		err = w.zip(r, size, "", 1)
	} else {
		err = w.stream(format, io.NewSectionReader(r, 0, size), "", 1)
	}
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

type walker struct {
	ctx     context.Context
	lim     Limits
	v       Visitor
	members int
	total   int64 // bytes expanded so far
}

func prefixed(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + Sep + name
}

func (w *walker) skip(m Member, reason *errcode.Error) {
	if w.v.Skip != nil {
		w.v.Skip(m, reason)
	}
}

// next counts a member and checks cancellation and the member cap.
func (w *walker) next() error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	w.members++
	if w.members > w.lim.MaxMembers {
		return errcode.New(errcode.FileTooLarge, "archive: more than %d members", w.lim.MaxMembers)
	}
	return nil
}

func (w *walker) zip(r io.ReaderAt, size int64, prefix string, depth int) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return errcode.Wrap(errcode.ExtractFailed, err, "archive: not a readable zip file (%v)", err)
	}
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		if err := w.next(); err != nil {
			return err
		}
		m := Member{Path: prefixed(prefix, f.Name), Size: int64(f.UncompressedSize64), ModTime: f.Modified, Depth: depth}
		name, err := CleanName(f.Name)
		if err != nil {
			w.skip(m, errcode.As(err))
			continue
		}
		m.Path = prefixed(prefix, name)
		if !f.Mode().IsRegular() {
			w.skip(m, errcode.New(errcode.DocTypeUnsupported, "archive member %s is not a regular file", m.Path))
			continue
		}
		rc, err := f.Open()
		if err != nil {
			w.skip(m, errcode.Wrap(errcode.ExtractFailed, err, "archive member %s: %v", m.Path, err))
			continue
		}
		err = w.member(m, name, &counter{r: rc, w: w})
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// stream walks a tar, tar.gz or tar.bz2 read sequentially from r.
func (w *walker) stream(format Format, r io.Reader, prefix string, depth int) error {
	src := &counter{r: r, w: w}
	var in io.Reader = src
	switch format {
	case TarGz:
		gz, err := gzip.NewReader(src)
		if err != nil {
			return errcode.Wrap(errcode.ExtractFailed, err, "archive: not a readable gzip stream (%v)", err)
		}
		defer gz.Close()
		in = &counter{r: gz, w: w}
		src.free = true // compressed bytes are not expansion
	case TarBz2:
		in = &counter{r: bzip2.NewReader(src), w: w}
		src.free = true
	}
	tr := tar.NewReader(in)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if cerr := w.ctx.Err(); cerr != nil {
				return cerr
			}
			var ce *errcode.Error
			if errors.As(err, &ce) {
				return ce
			}
			return errcode.Wrap(errcode.ExtractFailed, err, "archive: damaged or truncated tar data (%v)", err)
		}
		if hdr.Typeflag == tar.TypeDir {
			continue
		}
		if err := w.next(); err != nil {
			return err
		}
		m := Member{Path: prefixed(prefix, hdr.Name), Size: hdr.Size, ModTime: hdr.ModTime, Depth: depth}
		name, err := CleanName(hdr.Name)
		if err != nil {
			w.skip(m, errcode.As(err))
			continue
		}
		m.Path = prefixed(prefix, name)
		if hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeRegA {
			w.skip(m, errcode.New(errcode.DocTypeUnsupported, "archive member %s is not a regular file", m.Path))
			continue
		}
		if err := w.member(m, name, tr); err != nil {
			return err
		}
	}
}

// member hands one regular member to the visitor, or expands it when it is
// a nested archive. r's bytes are already counted into the total.
func (w *walker) member(m Member, name string, r io.Reader) error {
	if m.Size > w.lim.MaxMemberBytes {
		w.skip(m, errcode.New(errcode.FileTooLarge, "archive member %s declares %d bytes, over the %d-byte cap", m.Path, m.Size, w.lim.MaxMemberBytes))
		return nil
	}
	if f := FormatOf(name); f != "" {
		if m.Depth >= w.lim.MaxDepth {
			w.skip(m, errcode.New(errcode.DocTypeUnsupported, "archive member %s is an archive nested deeper than the limit (ingest.archives depth %d)", m.Path, w.lim.MaxDepth))
			return nil
		}
		return w.nested(f, m, r)
	}
	lr := &memberReader{r: r, left: w.lim.MaxMemberBytes, path: m.Path}
	err := w.v.File(m, lr)
	if err != nil && ((lr.over && errcode.Of(err) == errcode.FileTooLarge) || (lr.damaged && errcode.Of(err) == errcode.ExtractFailed)) {
		w.skip(m, errcode.As(err))
		return nil
	}
	return err
}

// nested expands an archive inside an archive. A nested zip needs random
// access, so it is read into memory (at most MaxNestedZipBytes); tar
// formats stream.
func (w *walker) nested(f Format, m Member, r io.Reader) error {
	var err error
	if f == Zip {
		data, rerr := io.ReadAll(io.LimitReader(r, w.lim.MaxNestedZipBytes+1))
		switch {
		case rerr != nil:
			err = rerr
			if d := damaged(m.Path, rerr); d != nil {
				err = d
			}
		case int64(len(data)) > w.lim.MaxNestedZipBytes:
			w.skip(m, errcode.New(errcode.FileTooLarge, "nested zip %s is over the %d-byte cap", m.Path, w.lim.MaxNestedZipBytes))
			return nil
		default:
			err = w.zip(bytes.NewReader(data), int64(len(data)), m.Path, m.Depth+1)
		}
	} else {
		err = w.stream(f, r, m.Path, m.Depth+1)
	}
	var ce *errcode.Error
	if errors.As(err, &ce) && ce.Code == errcode.ExtractFailed {
		// A damaged nested archive is one bad member, not a bad parent.
		w.skip(m, ce)
		return nil
	}
	return err
}

// counter counts bytes read into the walker's total and fails once the
// total passes MaxTotalBytes.
type counter struct {
	r    io.Reader
	w    *walker
	free bool // compressed input: not counted
}

func (c *counter) Read(p []byte) (int, error) {
	if err := c.w.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	if !c.free {
		c.w.total += int64(n)
		if c.w.total > c.w.lim.MaxTotalBytes {
			return n, errcode.New(errcode.FileTooLarge, "archive: expands to more than %d bytes", c.w.lim.MaxTotalBytes)
		}
	}
	return n, err
}

// memberReader caps one member's bytes and turns a failure to read them
// (a corrupt or truncated compressed stream, a bad checksum) into
// EXTRACT_FAILED, which skips the member.
type memberReader struct {
	r       io.Reader
	left    int64
	path    string
	over    bool
	damaged bool
}

func (m *memberReader) Read(p []byte) (int, error) {
	if m.left < 0 {
		m.over = true
		return 0, errcode.New(errcode.FileTooLarge, "archive member %s expands past its size cap", m.path)
	}
	if int64(len(p)) > m.left+1 {
		p = p[:m.left+1]
	}
	n, err := m.r.Read(p)
	m.left -= int64(n)
	if m.left < 0 {
		m.over = true
		return n - 1, errcode.New(errcode.FileTooLarge, "archive member %s expands past its size cap", m.path)
	}
	if err != nil && err != io.EOF {
		if d := damaged(m.path, err); d != nil {
			m.damaged, err = true, d
		}
	}
	return n, err
}

// damaged is EXTRACT_FAILED for an uncoded error reading member path's
// data (a corrupt or truncated stream, a bad checksum), and nil for a
// coded error (the caps) or a cancellation, which keep their meaning.
func damaged(path string, err error) *errcode.Error {
	var ce *errcode.Error
	if errors.As(err, &ce) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return errcode.Wrap(errcode.ExtractFailed, err, "archive member %s cannot be read: %v", path, err)
}
