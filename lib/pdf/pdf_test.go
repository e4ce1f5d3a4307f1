package pdf

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "multimodal", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func extractBytes(t testing.TB, b []byte) (*Document, error) {
	t.Helper()
	return Extract(bytes.NewReader(b), int64(len(b)), Options{})
}

func TestDigitalPDFPagesHaveTheirText(t *testing.T) {
	doc, err := extractBytes(t, fixture(t, "digital.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"restart the ingest worker with systemctl",
		"Chunks are 512 tokens with 64 tokens of overlap",
		"thirty second windows with five seconds of overlap",
	}
	if len(doc.Pages) != 3 {
		t.Fatalf("%d pages", len(doc.Pages))
	}
	for i, p := range doc.Pages {
		flat := strings.Join(strings.Fields(p.Text), " ")
		if p.Number != i+1 || !p.HasText || p.Err != nil || !strings.Contains(flat, want[i]) {
			t.Errorf("page %d (has text %v, err %v): %q lacks %q", p.Number, p.HasText, p.Err, flat, want[i])
		}
		for j, w := range want {
			if j != i && strings.Contains(flat, w) {
				t.Errorf("page %d holds page %d's text", i+1, j+1)
			}
		}
	}
	if got := doc.PagesWithoutText(); len(got) != 0 {
		t.Fatalf("PagesWithoutText = %v", got)
	}
}

func TestScannedPDFNeedsOCR(t *testing.T) {
	doc, err := extractBytes(t, fixture(t, "scanned.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(doc.PagesWithoutText(), []int{1}) || doc.Pages[0].HasText {
		t.Fatalf("pages %+v", doc.Pages)
	}
}

func TestUnreadablePDFsFailWithReason(t *testing.T) {
	digital := fixture(t, "digital.pdf")
	for name, c := range map[string]struct {
		data   []byte
		reason string
	}{
		"aes256 with password": {fixture(t, "encrypted-aes256.pdf"), "encrypted"},
		"truncated":            {fixture(t, "truncated.pdf"), "truncated"},
		"cut before xref":      {digital[:len(digital)*2/3], "truncated"},
		"not a pdf":            {[]byte("hello, world\n"), "not a PDF"},
		"empty":                {nil, "not a PDF"},
		"header only":          {[]byte("%PDF-1.4\n%%EOF\n"), "pdf:"},
	} {
		_, err := extractBytes(t, c.data)
		e := errcode.As(err)
		if e.Code != errcode.ExtractFailed || !strings.Contains(e.Message, c.reason) {
			t.Errorf("%s: got %v, want EXTRACT_FAILED mentioning %q", name, err, c.reason)
		}
	}
}

func TestEncryptedWithoutUserPasswordIsReadable(t *testing.T) {
	doc, err := extractBytes(t, fixture(t, "encrypted-no-user-password.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Pages[0].Text, "ingest worker") {
		t.Fatalf("page 1: %q", doc.Pages[0].Text)
	}
}

func TestToleratesPDF20HeaderAndTrailingJunk(t *testing.T) {
	b := append([]byte(nil), fixture(t, "digital.pdf")...)
	copy(b, "%PDF-2.0")
	b = append(b, bytes.Repeat([]byte{0}, 700)...)
	doc, err := extractBytes(t, b)
	if err != nil || len(doc.Pages) != 3 || !doc.Pages[2].HasText {
		t.Fatalf("%v %v", doc, err)
	}
}

func TestLayoutSpacesAndLines(t *testing.T) {
	content := `BT /F1 12 Tf 72 700 Td (Hello)Tj 40 0 Td (World)Tj
0 -14 Td [(Kerned)-300(gap)]TJ
14 TL T* 4 Tc (ab)Tj 0 Tc
/F2 12 Tf 0 -14 Td <00080005000C000C000F00200017000F0012000C0004>Tj ET`
	doc, err := extractBytes(t, buildPDF(content))
	if err != nil {
		t.Fatal(err)
	}
	want := "Hello World\nKerned gap\na b\nhello world"
	if got := doc.Pages[0].Text; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestFormXObjectTextIsFollowed(t *testing.T) {
	// A page drawing a form that draws text; the form's content is held in
	// an XObject resource.
	b := buildPDF("q 1 0 0 1 0 0 cm /X1 Do Q")
	form := "BT /F1 12 Tf 72 700 Td (Inside the form)Tj ET"
	formObj := "<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Length " + itoa(len(form)) + " >>\nstream\n" + form + "\nendstream"
	b = injectXObject(t, b, formObj)
	doc, err := extractBytes(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages[0].Text != "Inside the form" {
		t.Fatalf("got %q", doc.Pages[0].Text)
	}
}

func TestMaxPagesAndTextCap(t *testing.T) {
	long := "BT /F1 12 Tf 72 700 Td (" + strings.Repeat("word ", 400) + ")Tj ET"
	b := buildPDF(long, long, long)
	doc, err := Extract(bytes.NewReader(b), int64(len(b)), Options{MaxPages: 2, MaxTextBytes: 100})
	if err != nil || len(doc.Pages) != 2 || len(doc.Pages[0].Text) > 100 {
		t.Fatalf("%d pages, %d bytes, %v", len(doc.Pages), len(doc.Pages[0].Text), err)
	}
}

func TestExtractFile(t *testing.T) {
	if _, err := ExtractFile(filepath.Join("..", "..", "testdata", "multimodal", "digital.pdf"), Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ExtractFile("does-not-exist.pdf", Options{}); errcode.Of(err) != errcode.ExtractFailed {
		t.Fatalf("missing file: %v", err)
	}
}
