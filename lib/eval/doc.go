package eval

import (
	"fmt"
	"regexp"
	"strconv"
)

// Doc is a judged document: a whole file (Start == 0) or the 1-based
// inclusive source lines Start..End of one.
type Doc struct {
	Path       string
	Start, End int
}

var lineDoc = regexp.MustCompile(`^(.+):L([0-9]+)-L([0-9]+)$`)

// ParseDoc reads a qrels DOC: "rel/path" or "rel/path:L<start>-L<end>".
func ParseDoc(s string) (Doc, error) {
	m := lineDoc.FindStringSubmatch(s)
	if m == nil {
		if s == "" {
			return Doc{}, fmt.Errorf("empty document")
		}
		return Doc{Path: s}, nil
	}
	a, err1 := strconv.Atoi(m[2])
	b, err2 := strconv.Atoi(m[3])
	if err1 != nil || err2 != nil || a < 1 || b < a {
		return Doc{}, fmt.Errorf("document %q: want L<start>-L<end> with 1 <= start <= end", s)
	}
	return Doc{Path: m[1], Start: a, End: b}, nil
}

// String is the qrels form of d.
func (d Doc) String() string {
	if d.Start == 0 {
		return d.Path
	}
	return fmt.Sprintf("%s:L%d-L%d", d.Path, d.Start, d.End)
}

// Hit is a returned search hit as the metrics see it: a path and, for a
// line-span hit, its lines (Start == 0: a page or time span, or none).
type Hit struct {
	Path       string
	Start, End int
}

// Matches reports whether h counts as a hit on d: same path and, for a line
// document, overlapping lines. A hit without lines matches only whole files.
func (d Doc) Matches(h Hit) bool {
	if h.Path != d.Path {
		return false
	}
	if d.Start == 0 {
		return true
	}
	return h.Start > 0 && h.Start <= d.End && h.End >= d.Start
}

// LineDocs reports whether any judged document of qrels is a line range
// (such a set is scored on hits as returned, not on distinct files).
func LineDocs(q Qrels) bool {
	for _, rel := range q {
		for s := range rel {
			if d, err := ParseDoc(s); err == nil && d.Start > 0 {
				return true
			}
		}
	}
	return false
}
