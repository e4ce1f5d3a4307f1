package exclude

import (
	"errors"
	"fmt"
	"strings"
)

// Pattern is one compiled gitignore-style pattern (see gitignore(5)):
//
//   - a leading "!" negates the pattern (Negate);
//   - a trailing "/" restricts it to directories (DirOnly);
//   - a "/" at the start or in the middle anchors it to the base directory,
//     otherwise it matches a name at any depth;
//   - "*" matches any run of characters except "/", "?" one character except
//     "/", "[a-z]", "[!a-z]" and "[^a-z]" one character of (not of) a set,
//     including POSIX classes such as "[[:digit:]]";
//   - "**/" at the start matches any number of leading directories, "/**/"
//     zero or more directories, a trailing "/**" everything inside; other
//     consecutive asterisks are ordinary "*";
//   - "\" escapes the next character; unescaped trailing spaces are dropped.
//
// Matching is case-sensitive and works on slash-separated paths relative to
// the base directory.
type Pattern struct {
	text     string // as written, for messages
	Negate   bool
	DirOnly  bool
	anchored bool      // matched against the whole path, else against the base name
	segs     []segment // path segments; a single segment when not anchored
	// inside is set for "**/name/**" (segs are **, name, **): the pattern
	// matches a path with a directory segment, any but the last, that
	// matches name. Matched without splitting the path (matchPath would,
	// for two "**"): such patterns (.git, node_modules) are tried on every
	// path the scanner and the server check.
	inside *segment
}

// Bounds on one pattern: a longer one, or one with more path segments, is
// refused, so matching work stays small whatever a client sends.
const (
	MaxPatternBytes    = 1024
	MaxPatternSegments = 64
)

// ParsePattern compiles one pattern. Blank lines and "#" comments are not
// patterns; ParsePattern rejects them, as it rejects an unterminated "[",
// a trailing "\", or a pattern over MaxPatternBytes or MaxPatternSegments.
// Repeated "**/" segments are one.
func ParsePattern(s string) (*Pattern, error) {
	if len(s) > MaxPatternBytes {
		return nil, fmt.Errorf("pattern is %d bytes long; at most %d are allowed", len(s), MaxPatternBytes)
	}
	p := &Pattern{text: s}
	body := trimTrailingSpaces(s)
	if strings.HasPrefix(body, "!") {
		p.Negate = true
		body = body[1:]
	}
	if strings.HasSuffix(body, "/") && !strings.HasSuffix(body, `\/`) {
		p.DirOnly = true
		body = strings.TrimRight(body, "/")
	}
	if body == "" {
		return nil, errors.New("empty pattern")
	}
	if !p.Negate && strings.HasPrefix(body, "#") {
		return nil, errors.New(`a pattern starting with "#" is a comment (escape it as "\#")`)
	}
	if strings.Contains(body, "/") {
		p.anchored = true
		body = strings.TrimPrefix(body, "/")
	}
	parts := strings.Split(body, "/")
	if len(parts) > MaxPatternSegments {
		return nil, fmt.Errorf("pattern has %d path segments; at most %d are allowed", len(parts), MaxPatternSegments)
	}
	for _, part := range parts {
		if part == "" {
			return nil, errors.New(`empty path segment ("//")`)
		}
		seg, err := compileSegment(part)
		if err != nil {
			return nil, err
		}
		if n := len(p.segs); n > 0 && seg.kind == segDoubleStar && p.segs[n-1].kind == segDoubleStar {
			continue // "**/**" is "**"
		}
		p.segs = append(p.segs, seg)
	}
	// "**/name" is the same as an unanchored "name".
	if p.anchored && len(p.segs) == 2 && p.segs[0].kind == segDoubleStar && p.segs[1].kind != segDoubleStar {
		p.anchored = false
		p.segs = p.segs[1:]
	}
	if !p.anchored && p.segs[0].kind == segDoubleStar {
		p.segs[0] = segment{kind: segStar}
	}
	if p.anchored && len(p.segs) == 3 && p.segs[0].kind == segDoubleStar && p.segs[2].kind == segDoubleStar &&
		p.segs[1].kind != segDoubleStar {
		p.inside = &p.segs[1]
	}
	return p, nil
}

// String returns the pattern as written.
func (p *Pattern) String() string { return p.text }

// Match reports whether the pattern matches relPath, a slash-separated path
// relative to the pattern's base directory; isDir says whether it names a
// directory. Negate does not invert the result: Match reports that the
// pattern applies, and Rules decides what that means.
func (p *Pattern) Match(relPath string, isDir bool) bool {
	if p.DirOnly && !isDir {
		return false
	}
	if !p.anchored {
		base := relPath
		if i := strings.LastIndexByte(relPath, '/'); i >= 0 {
			base = relPath[i+1:]
		}
		return p.segs[0].match(base)
	}
	if p.inside != nil {
		for {
			i := strings.IndexByte(relPath, '/')
			if i < 0 {
				return false // the last segment: "/**" needs one more
			}
			if p.inside.match(relPath[:i]) {
				return true
			}
			relPath = relPath[i+1:]
		}
	}
	return matchPath(p.segs, relPath)
}

// matchesAllInside reports whether the pattern matches every path strictly
// inside the directory relDir, because it ends in "/**" and the part before
// matches relDir.
func (p *Pattern) matchesAllInside(relDir string) bool {
	n := len(p.segs)
	if !p.anchored || n < 2 || p.segs[n-1].kind != segDoubleStar {
		return false
	}
	return matchPath(p.segs[:n-1], relDir)
}

// matchPath matches pattern segments against the segments of s. A "**"
// segment matches zero or more path segments, except in last position where
// it needs at least one (gitignore: "abc/**" does not match "abc"). With
// more than one "**" the match is memoized (matchParts), so it takes at
// most segments × path segments² steps instead of exponentially many.
func matchPath(segs []segment, s string) bool {
	stars := 0
	for _, g := range segs {
		if g.kind == segDoubleStar {
			stars++
		}
	}
	if stars > 1 {
		var parts []string
		if s != "" {
			parts = strings.Split(s, "/")
		}
		m := &partsMatch{segs: segs, parts: parts, seen: make([]bool, (len(segs)+1)*(len(parts)+1))}
		return m.match(0, 0)
	}
	for len(segs) > 0 {
		if segs[0].kind == segDoubleStar {
			if len(segs) == 1 {
				return s != ""
			}
			for {
				if matchPath(segs[1:], s) {
					return true
				}
				i := strings.IndexByte(s, '/')
				if i < 0 {
					return false
				}
				s = s[i+1:]
			}
		}
		if s == "" {
			return false
		}
		head, rest := s, ""
		if i := strings.IndexByte(s, '/'); i >= 0 {
			head, rest = s[:i], s[i+1:]
		}
		if !segs[0].match(head) {
			return false
		}
		segs, s = segs[1:], rest
	}
	return s == ""
}

// partsMatch matches segs against path segments parts, remembering the
// (segment, part) positions already found not to match.
type partsMatch struct {
	segs  []segment
	parts []string
	seen  []bool // [i*(len(parts)+1)+j]: segs[i:] does not match parts[j:]
}

func (m *partsMatch) match(i, j int) bool {
	n := len(m.parts)
	if i == len(m.segs) {
		return j == n
	}
	k := i*(n+1) + j
	if m.seen[k] {
		return false
	}
	ok := false
	switch g := m.segs[i]; {
	case g.kind == segDoubleStar && i == len(m.segs)-1:
		ok = j < n
	case g.kind == segDoubleStar:
		for x := j; x < n && !ok; x++ {
			ok = m.match(i+1, x)
		}
	default:
		ok = j < n && g.match(m.parts[j]) && m.match(i+1, j+1)
	}
	m.seen[k] = !ok
	return ok
}

// trimTrailingSpaces drops trailing spaces that are not escaped with "\".
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") {
		t := strings.TrimSuffix(s, " ")
		// Count the backslashes before the space: an odd number escapes it.
		n := 0
		for i := len(t) - 1; i >= 0 && t[i] == '\\'; i-- {
			n++
		}
		if n%2 == 1 {
			return s
		}
		s = t
	}
	return s
}

// Rules is an ordered pattern list with gitignore precedence: the last
// pattern that matches a path decides, and a negated one re-includes it.
type Rules []*Pattern

// Decide returns the pattern that decides relPath, or nil when none matches.
// The path is excluded when the result is non-nil and not negated.
func (r Rules) Decide(relPath string, isDir bool) *Pattern {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i].Match(relPath, isDir) {
			return r[i]
		}
	}
	return nil
}

// Excluded reports whether relPath is excluded and by which pattern.
func (r Rules) Excluded(relPath string, isDir bool) (*Pattern, bool) {
	p := r.Decide(relPath, isDir)
	return p, p != nil && !p.Negate
}
