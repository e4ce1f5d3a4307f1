package pdf

import (
	lpdf "github.com/dir2mcp/dir2mcp/lib/pdf/internal/parse"
)

// defaultWidth is used for glyphs whose width the font does not give
// (standard 14 fonts without /Widths): half an em.
const defaultWidth = 500

// font decodes shown strings into text and glyph widths.
type font struct {
	composite bool              // Type0: codes are 2 bytes unless the CMap says 1
	toUnicode *cmap             // preferred decoding
	enc       lpdf.TextEncoding // ledongthuc's simple-font encodings
	first     int               // simple fonts: code of widths[0]
	widths    []float64
	missing   float64 // FontDescriptor /MissingWidth
	cidWidths map[int]float64
	dw        float64
}

// glyph is one decoded code.
type glyph struct {
	text  string
	width float64 // in 1/1000 text space units
	space bool    // the single-byte code 32, which gets word spacing
}

func newFont(v lpdf.Value) *font {
	f := &font{dw: 1000}
	if tu := v.Key("ToUnicode"); tu.Kind() == lpdf.Stream {
		f.toUnicode = parseCMap(tu)
	}
	if v.Key("Subtype").Name() == "Type0" {
		f.composite = true
		d := v.Key("DescendantFonts").Index(0)
		if dw := d.Key("DW"); dw.Kind() == lpdf.Integer || dw.Kind() == lpdf.Real {
			f.dw = dw.Float64()
		}
		f.cidWidths = parseW(d.Key("W"))
	} else {
		// Resolve widths once: every Key lookup re-reads the object.
		f.first = int(v.Key("FirstChar").Int64())
		w := v.Key("Widths")
		for i := 0; i < w.Len() && i < 1<<16; i++ {
			f.widths = append(f.widths, w.Index(i).Float64())
		}
		f.missing = v.Key("FontDescriptor").Key("MissingWidth").Float64()
		if f.toUnicode == nil {
			lf := lpdf.Font{V: v}
			f.enc = lf.Encoder()
		}
	}
	return f
}

// parseW reads a CIDFont /W array: c [w1 w2 ...] or c_first c_last w.
func parseW(w lpdf.Value) map[int]float64 {
	out := map[int]float64{}
	for i := 0; i < w.Len(); {
		c := int(w.Index(i).Int64())
		next := w.Index(i + 1)
		if next.Kind() == lpdf.Array {
			for j := 0; j < next.Len() && j < 1<<16; j++ {
				out[c+j] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		last := int(next.Int64())
		width := w.Index(i + 2).Float64()
		for k := c; k <= last && k-c < 1<<16; k++ {
			out[k] = width
		}
		i += 3
	}
	return out
}

// codeLen is the byte length of the next code in s.
func (f *font) codeLen(s string) int {
	if f.toUnicode != nil {
		for n := 1; n <= 4 && n <= len(s); n++ {
			if f.toUnicode.codeLen[n] {
				if _, ok := f.toUnicode.lookup(s[:n]); ok || !f.composite || n == 2 {
					return n
				}
			}
		}
	}
	if f.composite && len(s) >= 2 {
		return 2
	}
	return 1
}

// decode splits a shown string into glyphs.
func (f *font) decode(s string) []glyph {
	out := make([]glyph, 0, len(s))
	for len(s) > 0 {
		n := f.codeLen(s)
		code := s[:n]
		s = s[n:]
		g := glyph{space: n == 1 && code[0] == ' '}
		switch {
		case f.toUnicode != nil:
			g.text, _ = f.toUnicode.lookup(code)
		case f.enc != nil:
			g.text = f.enc.Decode(code)
		}
		cv := codeValue(code)
		if f.composite {
			if w, ok := f.cidWidths[cv]; ok {
				g.width = w
			} else {
				g.width = f.dw
			}
		} else {
			if i := cv - f.first; i >= 0 && i < len(f.widths) {
				g.width = f.widths[i]
			}
			if g.width <= 0 {
				g.width = f.missing
			}
			if g.width <= 0 {
				g.width = defaultWidth
			}
		}
		out = append(out, g)
	}
	return out
}
