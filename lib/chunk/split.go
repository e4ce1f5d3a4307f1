package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// appendSplitLine appends line i, which is longer than maxChars, as pieces
// of at most maxChars bytes that all cite line i. A cut falls in the last
// quarter of a part at the best place cutScore finds, else at a rune
// boundary. With overlap > 0 the
// next part starts up to overlap bytes earlier, at a word start. It also
// returns the text offset where the last appended part starts (-1 if none).
func (x *lineIndex) appendSplitLine(out []Piece, i, maxChars, overlap int, code bool) ([]Piece, int) {
	line := x.line(i)
	pos, last := 0, -1
	for pos < len(line) {
		pos += len(line[pos:]) - len(strings.TrimLeftFunc(line[pos:], unicode.IsSpace))
		if pos >= len(line) {
			break
		}
		end := len(line)
		if pos+maxChars < len(line) {
			end = cutPoint(line, pos, pos+maxChars, code)
		}
		if part := strings.TrimRightFunc(line[pos:end], unicode.IsSpace); part != "" {
			out = append(out, Piece{Text: part, Span: record.Lines(i+1, i+1), Ordinal: len(out), Col: pos})
			last = x.start[i] + pos
		}
		if end >= len(line) {
			break
		}
		pos = lineOverlapStart(line, pos, end, overlap)
	}
	return out, last
}

// cutPoint picks where a part of line starting at pos and limited to end
// (exclusive, end < len(line)) stops. It always makes progress.
func cutPoint(line string, pos, end int, code bool) int {
	lo := max(pos+1, end-(end-pos)/4)
	best, bestScore := -1, 0
	for k := end; k >= lo; k-- {
		s := cutScore(line, k, code)
		if s > bestScore {
			best, bestScore = k, s
			if s == 3 {
				break
			}
		}
	}
	if best > 0 {
		return best
	}
	k := end
	for k > pos && !utf8.RuneStart(line[k]) {
		k--
	}
	if k <= pos {
		_, size := utf8.DecodeRuneInString(line[pos:])
		k = pos + size
	}
	return k
}

// cutScore rates cutting line before index k, from 3 (best) to 0. Prose
// prefers a sentence end, then a space, then punctuation; code prefers a
// statement or block end, then a separator, then a space.
func cutScore(line string, k int, code bool) int {
	c := line[k-1]
	if code {
		switch c {
		case ';', '}':
			return 3
		case ',', ')', ']', '{':
			return 2
		case ' ', '\t':
			return 1
		}
		return 0
	}
	switch c {
	case ' ', '\t':
		if k >= 2 {
			switch line[k-2] {
			case '.', '!', '?':
				return 3
			}
		}
		return 2
	case ',', ';', '}', ')', ']', '>', '{':
		return 1
	}
	return 0
}

// lineOverlapStart returns where the part after [pos, end) starts: at the
// earliest sentence start, else word start, within overlap bytes before
// end; or end itself.
func lineOverlapStart(line string, pos, end, overlap int) int {
	if overlap <= 0 {
		return end
	}
	word := -1
	for k := max(end-overlap, pos+1); k < end; k++ {
		if line[k-1] != ' ' && line[k-1] != '\t' || line[k] == ' ' || line[k] == '\t' {
			continue
		}
		if k >= 2 && (line[k-2] == '.' || line[k-2] == '!' || line[k-2] == '?') {
			return k
		}
		if word < 0 {
			word = k
		}
	}
	if word >= 0 {
		return word
	}
	return end
}
