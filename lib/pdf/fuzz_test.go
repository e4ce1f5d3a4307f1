package pdf

import (
	"bytes"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/hangcheck"
)

// FuzzExtract checks that no input panics or fails with anything but
// EXTRACT_FAILED, or runs longer than hangcheck.Limit.
func FuzzExtract(f *testing.F) {
	f.Add(fixture(f, "digital.pdf"))
	f.Add(fixture(f, "truncated.pdf"))
	f.Add(buildPDF(`BT /F1 12 Tf 72 700 Td (Hello)Tj [(a)-300(b)]TJ /F2 9 Tf <0001>Tj ET`))
	f.Add([]byte("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << /Root 1 0 R >>\nstartxref\n9\n%%EOF\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		defer hangcheck.Arm()()
		doc, err := Extract(bytes.NewReader(b), int64(len(b)), Options{MaxPages: 50})
		if err != nil {
			if errcode.Of(err) != errcode.ExtractFailed {
				t.Fatalf("error %v has code %s", err, errcode.Of(err))
			}
			return
		}
		for _, p := range doc.Pages {
			if p.Err != nil && errcode.Of(p.Err) != errcode.ExtractFailed {
				t.Fatalf("page error %v", p.Err)
			}
		}
	})
}
