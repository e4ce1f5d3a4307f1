package corpus

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/archive"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Exact reads return the bytes asked for, refuse lengths and offsets out
// of bounds without allocating them, and never hand out a slice of a
// secret, even one that cuts it in two.
func TestReadRange(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	key := "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"
	withKey := big[:2<<20] + key + big[2<<20:]
	a := newAccess(t, map[string]string{"a.txt": "0123456789", "big.txt": withKey, "plain.bin": big}, nil)
	writeZip(t, filepath.Join(a.Root.Dir(), "docs.zip"), map[string]string{"m.txt": "member bytes"})
	ctx := context.Background()
	read := func(rel string, off, n int64) (string, int64, error) {
		tg, err := a.Open(ctx, rel)
		if err != nil {
			return "", 0, err
		}
		rg, err := a.ReadRange(ctx, &tg, off, n)
		return string(rg.Data), rg.Size, err
	}
	for _, c := range []struct {
		rel     string
		off, n  int64
		want    string
		size    int64
		errCode errcode.Code
		field   string
	}{
		{rel: "a.txt", off: 2, n: 3, want: "234", size: 10},
		{rel: "a.txt", off: 8, n: 100, want: "89", size: 10},
		{rel: "a.txt", off: 10, n: 1, want: "", size: 10},
		{rel: "a.txt", off: 11, n: 1, errCode: errcode.InvalidRange, field: "offset"},
		{rel: "a.txt", off: 0, n: MaxRange + 1, errCode: errcode.InvalidRange, field: "length"},
		{rel: "a.txt", off: 0, n: 1 << 62, errCode: errcode.InvalidRange, field: "length"},
		{rel: archive.Join("docs.zip", "m.txt"), off: 7, n: 5, want: "bytes", size: 12},
		{rel: "plain.bin", off: 1 << 20, n: 4, want: "xxxx", size: 3 << 20},
		// The key starts at 2 MiB: a range far from it is served, one
		// cutting it (or just before it) is refused.
		{rel: "big.txt", off: 0, n: 16, want: strings.Repeat("x", 16), size: int64(len(withKey))},
		{rel: "big.txt", off: 2<<20 + 10, n: 8, errCode: errcode.Forbidden, field: "rel_path"},
		{rel: "big.txt", off: 2<<20 - 8, n: 8, errCode: errcode.Forbidden, field: "rel_path"},
	} {
		got, size, err := read(c.rel, c.off, c.n)
		if c.errCode != "" {
			if e := errcode.As(err); err == nil || e.Code != c.errCode || e.Field != c.field {
				t.Errorf("%s [%d,+%d]: got %v, want %s on %s", c.rel, c.off, c.n, err, c.errCode, c.field)
			}
			continue
		}
		if err != nil || got != c.want || size != c.size {
			t.Errorf("%s [%d,+%d] = %q size %d, %v; want %q size %d", c.rel, c.off, c.n, got, size, err, c.want, c.size)
		}
	}
	tg, _ := a.Open(ctx, archive.Join("docs.zip", "m.txt"))
	r, size, err := a.Stream(ctx, &tg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	r.Close()
	if string(b) != "member bytes" || size != 12 {
		t.Fatalf("Stream(member) = %q %d", b, size)
	}
}
