package pdf

import (
	"bytes"
	"fmt"
	"strings"
)

// buildPDF writes a minimal valid PDF whose pages have the given content
// streams. Font F1 is Helvetica (standard 14, no widths); font F2 is a
// Type0 Identity-H font whose ToUnicode maps <0001>-<001A> to "a"-"z" and
// <0020> to " ", with every glyph 500 units wide.
func buildPDF(contents ...string) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	cmap := `/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CMapName /Test def
1 begincodespacerange
<0000> <FFFF>
endcodespacerange
1 beginbfchar
<0020> <0020>
endbfchar
1 beginbfrange
<0001> <001A> <0061>
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end`
	catalog := add("<< /Type /Catalog /Pages 2 0 R >>")
	pagesObj := add("") // filled below
	f1 := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	tu := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap), cmap))
	desc := add("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Test /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 >>")
	f2 := add(fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /Test /Encoding /Identity-H /DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>", desc, tu))
	var kids []string
	for _, c := range contents {
		cs := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c), c))
		p := add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> /Contents %d 0 R >>", f1, f2, cs))
		kids = append(kids, fmt.Sprintf("%d 0 R", p))
	}
	objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, xref)
	return b.Bytes()
}

func itoa(n int) string { return fmt.Sprint(n) }

// injectXObject rewrites the first page's resources to hold /X1 as a new
// object appended to the file, and rebuilds the xref.
func injectXObject(t interface{ Fatal(...any) }, b []byte, obj string) []byte {
	s := string(b)
	body := s[:strings.Index(s, "xref\n")]
	n := strings.Count(body, " 0 obj\n")
	body += fmt.Sprintf("%d 0 obj\n%s\nendobj\n", n+1, obj)
	body = strings.Replace(body, "/Resources << /Font", fmt.Sprintf("/Resources << /XObject << /X1 %d 0 R >> /Font", n+1), 1)
	// Rebuild offsets from the object headers.
	var b2 bytes.Buffer
	b2.WriteString(body)
	xref := b2.Len()
	fmt.Fprintf(&b2, "xref\n0 %d\n0000000000 65535 f \n", n+2)
	for i := 1; i <= n+1; i++ {
		off := strings.Index(body, fmt.Sprintf("\n%d 0 obj\n", i)) + 1
		if off <= 0 {
			t.Fatal("object", i, "not found")
		}
		fmt.Fprintf(&b2, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b2, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", n+2, xref)
	return b2.Bytes()
}
