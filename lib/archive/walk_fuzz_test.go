package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/hangcheck"
)

// fuzzFormats are the names FuzzWalk reads its input as.
var fuzzFormats = []string{"a.zip", "a.tar", "a.tar.gz", "a.tgz", "a.tar.bz2"}

type fuzzMember struct {
	name, body string
	typ        byte // tar type flag; 0 = regular
}

func zipOf(tb testing.TB, ms ...fuzzMember) []byte {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, m := range ms {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate}
		if m.typ == tar.TypeSymlink {
			h.SetMode(0o777 | 1<<27) // fs.ModeSymlink
		}
		f, err := w.CreateHeader(h)
		if err != nil {
			tb.Fatal(err)
		}
		f.Write([]byte(m.body))
	}
	w.Close()
	return b.Bytes()
}

func tarOf(tb testing.TB, ms ...fuzzMember) []byte {
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for _, m := range ms {
		h := &tar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.body)), Typeflag: tar.TypeReg}
		if m.typ != 0 {
			h.Typeflag, h.Size, h.Linkname = m.typ, 0, m.body
		}
		if err := w.WriteHeader(h); err != nil {
			tb.Fatal(err)
		}
		if m.typ == 0 {
			w.Write([]byte(m.body))
		}
	}
	w.Close()
	return b.Bytes()
}

func gzipOf(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// fuzzLimits are small caps, so bombs hit them within a fuzz iteration.
var fuzzLimits = Limits{MaxMembers: 64, MaxMemberBytes: 64 << 10, MaxTotalBytes: 256 << 10, MaxDepth: 2, MaxNestedZipBytes: 64 << 10}

// FuzzWalk reads hostile zip, tar, tar.gz and tar.bz2 data: it fails only
// with coded errors, visits only members with clean relative names no
// deeper than MaxDepth, never hands out more than MaxMemberBytes of one
// member or MaxTotalBytes in all, and skips members for coded reasons.
func FuzzWalk(f *testing.F) {
	plain := []fuzzMember{{"a.txt", "alpha", 0}, {"docs/b.md", "# b", 0}}
	hostile := []fuzzMember{
		{"../../evil.txt", "x", 0}, {"/etc/passwd", "x", 0}, {`..\..\win.txt`, "x", 0}, {"C:/x.txt", "x", 0},
		{"a!/b.txt", "x", 0}, {"link", "../../etc/passwd", tar.TypeSymlink}, {"hard", "a.txt", tar.TypeLink},
		{"dev", "", tar.TypeChar}, {"fifo", "", tar.TypeFifo}, {"ok/./c.txt", "c", 0}, {"bad\xffname", "x", 0},
	}
	bomb := []fuzzMember{{"zeros.txt", strings.Repeat("\x00", 1<<20), 0}}
	inner := tarOf(f, plain...)
	nested := []fuzzMember{{"inner.tar", string(inner), 0}, {"inner.tar.gz", string(gzipOf(inner)), 0}, {"inner.zip", string(zipOf(f, plain...)), 0}}
	deep := []fuzzMember{{"l1.zip", string(zipOf(f, fuzzMember{"l2.zip", string(zipOf(f, plain...)), 0})), 0}}
	for _, ms := range [][]fuzzMember{plain, hostile, bomb, nested, deep} {
		f.Add(zipOf(f, ms...), uint8(0))
		t := tarOf(f, ms...)
		f.Add(t, uint8(1))
		f.Add(gzipOf(t), uint8(2))
	}
	f.Add(zipOf(f, plain...)[:40], uint8(0))
	f.Add(gzipOf(inner)[:30], uint8(2))
	f.Add([]byte("BZh91AY&SY"), uint8(4))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		defer hangcheck.Arm()()
		name := fuzzFormats[int(format)%len(fuzzFormats)]
		var total int64
		v := Visitor{
			File: func(m Member, r io.Reader) error {
				checkMember(t, m)
				n, err := io.Copy(io.Discard, r)
				total += n
				if n > fuzzLimits.MaxMemberBytes+1 {
					t.Fatalf("member %s gave %d bytes, cap %d", m.Path, n, fuzzLimits.MaxMemberBytes)
				}
				return err
			},
			Skip: func(m Member, reason *errcode.Error) {
				if reason == nil || reason.Code == errcode.Internal {
					t.Fatalf("member %s skipped for %v", m.Path, reason)
				}
			},
		}
		err := WalkReader(context.Background(), name, bytes.NewReader(data), int64(len(data)), fuzzLimits, v)
		if err != nil && errcode.Of(err) == errcode.Internal {
			t.Fatalf("%s: uncoded error %v", name, err)
		}
		if total > fuzzLimits.MaxTotalBytes {
			t.Fatalf("%s expanded to %d bytes, cap %d", name, total, fuzzLimits.MaxTotalBytes)
		}
	})
}

// checkMember fails unless m's path is clean, relative and inside the
// archive at every nesting level, within the depth cap.
func checkMember(t *testing.T, m Member) {
	t.Helper()
	if m.Depth < 1 || m.Depth > fuzzLimits.MaxDepth {
		t.Fatalf("member %s at depth %d", m.Path, m.Depth)
	}
	parts := strings.Split(m.Path, Sep)
	if len(parts) != m.Depth {
		t.Fatalf("member %s at depth %d has %d parts", m.Path, m.Depth, len(parts))
	}
	for _, p := range parts {
		if c, err := CleanName(p); err != nil || c != p {
			t.Fatalf("member path %s: part %q is not clean (%v)", m.Path, p, err)
		}
	}
}
