package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func fixture(name string) string { return filepath.Join("..", "..", "testdata", "multimodal", name) }

// collect walks an archive and returns member path -> content, and the
// skipped members with their codes.
func collect(t *testing.T, path string, lim Limits) (map[string]string, map[string]errcode.Code, error) {
	t.Helper()
	files := map[string]string{}
	skips := map[string]errcode.Code{}
	err := Walk(context.Background(), path, lim, Visitor{
		File: func(m Member, r io.Reader) error {
			b, err := io.ReadAll(r)
			if err != nil {
				return err
			}
			files[m.Path] = string(b)
			return nil
		},
		Skip: func(m Member, why *errcode.Error) { skips[m.Path] = why.Code },
	})
	return files, skips, err
}

func keys[V any](m map[string]V) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}

func TestZipAndTarGzMembers(t *testing.T) {
	for _, name := range []string{"docs.zip", "docs.tar.gz"} {
		files, skips, err := collect(t, fixture(name), Limits{})
		if err != nil || len(skips) != 0 {
			t.Fatalf("%s: %v, skips %v", name, err, skips)
		}
		if got := keys(files); !reflect.DeepEqual(got, []string{"docs/runbook.txt", "docs/sub/design.md"}) {
			t.Fatalf("%s: members %v", name, got)
		}
		if !strings.Contains(files["docs/runbook.txt"], "restart the ingest worker") {
			t.Fatalf("%s: runbook %q", name, files["docs/runbook.txt"])
		}
	}
}

func TestNestedArchiveIsExpandedUpToMaxDepth(t *testing.T) {
	files, _, err := collect(t, fixture("nested.zip"), Limits{})
	if err != nil || !strings.Contains(files["inner.tar.gz!/docs/sub/design.md"], "512 tokens") {
		t.Fatalf("%v %v", keys(files), err)
	}
	files, skips, err := collect(t, fixture("nested.zip"), Limits{MaxDepth: 1})
	if err != nil || len(files) != 0 || skips["inner.tar.gz"] != errcode.DocTypeUnsupported {
		t.Fatalf("depth 1: files %v skips %v err %v", keys(files), skips, err)
	}
}

func TestZipSlipNamesAreRejected(t *testing.T) {
	files, skips, err := collect(t, fixture("zip-slip.zip"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(keys(files), []string{"ok/inside.txt"}) {
		t.Fatalf("files %v", keys(files))
	}
	if len(skips) != 2 {
		t.Fatalf("skips %v", skips)
	}
	for p, code := range skips {
		if code != errcode.Forbidden {
			t.Fatalf("%s skipped with %s", p, code)
		}
	}
}

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"a/b.txt": "a/b.txt", "./a//b/": "a/b", `dir\file.txt`: "dir/file.txt", "a/./b": "a/b",
	} {
		if got, err := CleanName(in); err != nil || got != want {
			t.Errorf("CleanName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "../x", "a/../../x", "/etc/passwd", `C:\x`, `..\x`, "a\x00b", "a!/b", "\xff", ".", "a/.."} {
		if _, err := CleanName(in); errcode.Of(err) != errcode.Forbidden {
			t.Errorf("CleanName(%q) = %v, want FORBIDDEN", in, err)
		}
	}
}

func TestPathsAndFormats(t *testing.T) {
	if Join("a.zip", "in.tar.gz", "x.txt") != "a.zip!/in.tar.gz!/x.txt" {
		t.Fatal("Join")
	}
	if a, m, ok := Split("a.zip!/in.tar.gz!/x.txt"); !ok || a != "a.zip" || m != "in.tar.gz!/x.txt" {
		t.Fatalf("Split: %q %q %v", a, m, ok)
	}
	if _, _, ok := Split("plain/file.txt"); ok {
		t.Fatal("Split of a plain path")
	}
	for name, f := range map[string]Format{"A.ZIP": Zip, "x.tgz": TarGz, "x.tar.bz2": TarBz2, "x.tar": Tar, "x.tar.zst": "", "x.gz": ""} {
		if FormatOf(name) != f {
			t.Errorf("FormatOf(%s) = %q", name, FormatOf(name))
		}
	}
}

var (
	bombOnce sync.Once
	bombZip  string
)

// zipBomb writes (once) a ~200 KB zip whose single member expands to
// 200 MiB of zeros, like shared/fixtures' zip-bomb-200MB.zip.
func zipBomb(t *testing.T) string {
	bombOnce.Do(func() {
		f, err := os.CreateTemp("", "bomb-*.zip")
		if err != nil {
			t.Fatal(err)
		}
		zw := zip.NewWriter(f)
		zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestCompression) })
		w, _ := zw.Create("zeros.txt")
		zero := make([]byte, 1<<20)
		for i := 0; i < 200; i++ {
			w.Write(zero)
		}
		zw.Close()
		f.Close()
		bombZip = f.Name()
	})
	return bombZip
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bombZip != "" {
		os.Remove(bombZip)
	}
	os.Exit(code)
}

func TestZipBombIsSkippedWithoutExpanding(t *testing.T) {
	path := zipBomb(t)
	if st, _ := os.Stat(path); st.Size() > 400<<10 {
		t.Fatalf("bomb is %d bytes", st.Size())
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	files, skips, err := collect(t, path, Limits{})
	runtime.ReadMemStats(&after)
	if err != nil || len(files) != 0 || skips["zeros.txt"] != errcode.FileTooLarge {
		t.Fatalf("files %v skips %v err %v", keys(files), skips, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Fatalf("allocated %d bytes walking the bomb", alloc)
	}
}

func TestExpansionIsBoundedWhileStreaming(t *testing.T) {
	// With a member cap above 200 MiB the bomb is decompressed, but the
	// total cap stops it; streaming to io.Discard keeps memory flat.
	path := zipBomb(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read := int64(0)
	err := Walk(context.Background(), path, Limits{MaxMemberBytes: 300 << 20, MaxTotalBytes: 32 << 20}, Visitor{
		File: func(m Member, r io.Reader) error {
			n, err := io.Copy(io.Discard, r)
			read += n
			return err
		},
	})
	runtime.ReadMemStats(&after)
	if errcode.Of(err) != errcode.FileTooLarge || read > 33<<20 {
		t.Fatalf("err %v after reading %d bytes", err, read)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Fatalf("allocated %d bytes", alloc)
	}
}

func writeTarGz(t *testing.T, members map[string][]byte) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range keys(members) {
		data := members[name]
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write(data)
	}
	tw.WriteHeader(&tar.Header{Name: "link", Linkname: "/etc/passwd", Typeflag: tar.TypeSymlink})
	tw.Close()
	gz.Close()
	p := filepath.Join(t.TempDir(), "x.tar.gz")
	os.WriteFile(p, buf.Bytes(), 0o644)
	return p
}

func TestTarGzBombAndLinks(t *testing.T) {
	path := writeTarGz(t, map[string][]byte{"a.txt": []byte("alpha"), "big.bin": make([]byte, 40<<20)})
	files, skips, err := collect(t, path, Limits{MaxMemberBytes: 1 << 20})
	if err != nil || files["a.txt"] != "alpha" || skips["big.bin"] != errcode.FileTooLarge || skips["link"] != errcode.DocTypeUnsupported {
		t.Fatalf("files %v skips %v err %v", keys(files), skips, err)
	}
	// Skipping a member still inflates it to reach the next header: the
	// total cap applies to that too.
	_, _, err = collect(t, path, Limits{MaxMemberBytes: 1 << 20, MaxTotalBytes: 8 << 20})
	if errcode.Of(err) != errcode.FileTooLarge {
		t.Fatalf("total cap: %v", err)
	}
}

func TestMemberCountCap(t *testing.T) {
	m := map[string][]byte{}
	for i := 0; i < 20; i++ {
		m[fmt.Sprintf("f%02d.txt", i)] = []byte("x")
	}
	files, _, err := collect(t, writeTarGz(t, m), Limits{MaxMembers: 5})
	if errcode.Of(err) != errcode.FileTooLarge || len(files) != 5 {
		t.Fatalf("%d files, %v", len(files), err)
	}
}

func TestDamagedArchives(t *testing.T) {
	data, _ := os.ReadFile(fixture("docs.zip"))
	p := filepath.Join(t.TempDir(), "trunc.zip")
	os.WriteFile(p, data[:len(data)/2], 0o644)
	if _, _, err := collect(t, p, Limits{}); errcode.Of(err) != errcode.ExtractFailed {
		t.Fatalf("truncated zip: %v", err)
	}
	data, _ = os.ReadFile(writeTarGz(t, map[string][]byte{"a.txt": bytes.Repeat([]byte("abc"), 10000), "b.txt": []byte("b")}))
	p = filepath.Join(t.TempDir(), "trunc.tar.gz")
	os.WriteFile(p, data[:len(data)-40], 0o644)
	if _, _, err := collect(t, p, Limits{}); errcode.Of(err) != errcode.ExtractFailed {
		t.Fatalf("truncated tar.gz: %v", err)
	}
	if err := Walk(context.Background(), "x.rar", Limits{}, Visitor{}); errcode.Of(err) != errcode.FileNotFound {
		t.Fatalf("missing: %v", err)
	}
	if err := WalkReader(context.Background(), "x.rar", bytes.NewReader(nil), 0, Limits{}, Visitor{}); errcode.Of(err) != errcode.DocTypeUnsupported {
		t.Fatalf("rar: %v", err)
	}
}

func TestReadMember(t *testing.T) {
	b, err := ReadMember(context.Background(), fixture("nested.zip"), "inner.tar.gz!/docs/runbook.txt", Limits{MaxDepth: 1})
	if err != nil || !strings.Contains(string(b), "ingest worker") {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := ReadMember(context.Background(), fixture("docs.zip"), "docs/nope.txt", Limits{}); errcode.Of(err) != errcode.FileNotFound {
		t.Fatalf("missing member: %v", err)
	}
	if _, err := ReadMember(context.Background(), fixture("zip-slip.zip"), "../../../../tmp/dir2mcp-zip-slip-canary.txt", Limits{}); err == nil {
		t.Fatal("read an unsafe member")
	}
	if _, err := ReadMember(context.Background(), zipBomb(t), "zeros.txt", Limits{}); errcode.Of(err) != errcode.FileTooLarge {
		t.Fatalf("bomb member: %v", err)
	}
}

func TestMemberReaderCapsLyingSizes(t *testing.T) {
	r := &memberReader{r: bytes.NewReader(make([]byte, 1000)), left: 100, path: "x"}
	n, err := io.Copy(io.Discard, r)
	if n != 100 || errcode.Of(err) != errcode.FileTooLarge || !r.over {
		t.Fatalf("read %d, %v", n, err)
	}
	r = &memberReader{r: bytes.NewReader(make([]byte, 100)), left: 100, path: "x"}
	if n, err := io.Copy(io.Discard, r); n != 100 || err != nil {
		t.Fatalf("exact size: %d %v", n, err)
	}
}

func TestCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Walk(ctx, fixture("docs.tar.gz"), Limits{}, Visitor{File: func(Member, io.Reader) error { return nil }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

// A member whose data cannot be read (here a bad checksum) is skipped
// with EXTRACT_FAILED and the walk goes on to the next member; before,
// the raw read error ended the walk uncoded (FuzzWalk crasher).
func TestDamagedMemberIsSkipped(t *testing.T) {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	body := []byte("stored bytes whose checksum is wrong")
	f, _ := w.CreateRaw(&zip.FileHeader{Name: "bad.txt", Method: zip.Store, CRC32: 1, CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(len(body))})
	f.Write(body)
	g, _ := w.Create("good.txt")
	g.Write([]byte("fine"))
	w.Close()
	p := filepath.Join(t.TempDir(), "damaged.zip")
	os.WriteFile(p, b.Bytes(), 0o644)
	files, skips, err := collect(t, p, Limits{})
	if err != nil || files["good.txt"] != "fine" || skips["bad.txt"] != errcode.ExtractFailed {
		t.Fatalf("files %v, skips %v, err %v", keys(files), skips, err)
	}
	if _, err := ReadMember(context.Background(), p, "bad.txt", Limits{}); errcode.Of(err) != errcode.ExtractFailed {
		t.Fatalf("ReadMember of the damaged member: %v", err)
	}
}
