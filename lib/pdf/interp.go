package pdf

import (
	lpdf "github.com/dir2mcp/dir2mcp/lib/pdf/internal/parse"
)

// maxFormDepth bounds nested Form XObjects (a cycle would recurse forever).
const maxFormDepth = 8

// gstate is the part of the graphics and text state that places text
// (PDF 32000 §9.3, §9.4).
type gstate struct {
	ctm           matrix
	tm, tlm       matrix
	tc, tw, th    float64 // character and word spacing, horizontal scale
	tl, tfs, rise float64 // leading, font size, rise
	font          *font
}

// interp runs content streams and sends positioned text to out.
type interp struct {
	out *textOut
}

func newInterp(out *textOut) *interp { return &interp{out: out} }

// run interprets stream (a stream or an array of streams) with resources,
// starting from the transformation ctm.
func (in *interp) run(stream, resources lpdf.Value, ctm matrix, depth int) {
	if stream.IsNull() || depth > maxFormDepth {
		return
	}
	g := gstate{ctm: ctm, th: 1, tm: identity, tlm: identity}
	var stack []gstate
	fonts := map[string]*font{} // by resource name, parsed once per stream
	lpdf.Interpret(stream, func(stk *lpdf.Stack, op string) {
		args := make([]lpdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		num := func(i int) float64 {
			if i < len(args) {
				return args[i].Float64()
			}
			return 0
		}
		switch op {
		case "q":
			if len(stack) < 1024 {
				stack = append(stack, g)
			}
		case "Q":
			if n := len(stack); n > 0 {
				g, stack = stack[n-1], stack[:n-1]
			}
		case "cm":
			if len(args) == 6 {
				m := matrix{num(0), num(1), num(2), num(3), num(4), num(5)}
				if m.finite() {
					g.ctm = m.mul(g.ctm)
				}
			}
		case "BT":
			g.tm, g.tlm = identity, identity
		case "Tc":
			g.tc = num(0)
		case "Tw":
			g.tw = num(0)
		case "Tz":
			g.th = num(0) / 100
		case "TL":
			g.tl = num(0)
		case "Ts":
			g.rise = num(0)
		case "Tf":
			if len(args) == 2 {
				name := args[0].Name()
				f, ok := fonts[name]
				if !ok {
					if v := resources.Key("Font").Key(name); !v.IsNull() {
						f = newFont(v)
					}
					fonts[name] = f
				}
				g.font = f
				g.tfs = num(1)
			}
		case "Td", "TD":
			if len(args) == 2 {
				if op == "TD" {
					g.tl = -num(1)
				}
				g.tlm = translate(num(0), num(1)).mul(g.tlm)
				g.tm = g.tlm
			}
		case "Tm":
			if len(args) == 6 {
				m := matrix{num(0), num(1), num(2), num(3), num(4), num(5)}
				if m.finite() {
					g.tlm, g.tm = m, m
				}
			}
		case "T*":
			g.nextLine()
		case "Tj":
			if len(args) == 1 {
				in.show(&g, args[0].RawString())
			}
		case "'":
			if len(args) == 1 {
				g.nextLine()
				in.show(&g, args[0].RawString())
			}
		case "\"":
			if len(args) == 3 {
				g.tw, g.tc = num(0), num(1)
				g.nextLine()
				in.show(&g, args[2].RawString())
			}
		case "TJ":
			if len(args) == 1 && args[0].Kind() == lpdf.Array {
				a := args[0]
				for i := 0; i < a.Len(); i++ {
					x := a.Index(i)
					if x.Kind() == lpdf.String {
						in.show(&g, x.RawString())
					} else {
						g.tm = translate(-x.Float64()/1000*g.tfs*g.th, 0).mul(g.tm)
					}
				}
			}
		case "Do":
			if len(args) == 1 {
				in.form(resources.Key("XObject").Key(args[0].Name()), resources, g.ctm, depth)
			}
		}
	})
}

func (g *gstate) nextLine() {
	g.tlm = translate(0, -g.tl).mul(g.tlm)
	g.tm = g.tlm
}

// form runs a Form XObject's content with its own resources (or the
// page's) and matrix.
func (in *interp) form(x, resources lpdf.Value, ctm matrix, depth int) {
	if x.Kind() != lpdf.Stream || x.Key("Subtype").Name() != "Form" {
		return
	}
	m := identity
	if a := x.Key("Matrix"); a.Len() == 6 {
		m = matrix{a.Index(0).Float64(), a.Index(1).Float64(), a.Index(2).Float64(), a.Index(3).Float64(), a.Index(4).Float64(), a.Index(5).Float64()}
	}
	if r := x.Key("Resources"); !r.IsNull() {
		resources = r
	}
	in.out.newline()
	in.run(x, resources, m.mul(ctm), depth+1)
	in.out.newline()
}

// show places a shown string glyph by glyph: each glyph is laid out from
// its position to the end of its own width, then the text matrix advances
// by the width plus character (and, for byte 32, word) spacing. Placing
// glyphs singly matters: some producers (Ghostscript) encode word gaps as
// character spacing inside one string.
func (in *interp) show(g *gstate, s string) {
	if g.font == nil || s == "" {
		return
	}
	// Advancing only translates the text matrix along its x axis, so the
	// device position moves along one vector: compute it once per string.
	tc := g.tm.mul(g.ctm)
	start := matrix{g.tfs * g.th, 0, 0, g.tfs, 0, g.rise}.mul(tc)
	x, y, size := start[4], start[5], start.scale()
	ux, uy := tc[0], tc[1] // device displacement per text-space unit
	var adv float64        // total advance in text space
	for _, gl := range g.font.decode(s) {
		w := gl.width / 1000 * g.tfs * g.th
		gx, gy := x+adv*ux, y+adv*uy
		in.out.add(gl.text, gx, gy, gx+w*ux, size)
		tx := gl.width/1000*g.tfs + g.tc
		if gl.space {
			tx += g.tw
		}
		adv += tx * g.th
	}
	g.tm = translate(adv, 0).mul(g.tm)
}
