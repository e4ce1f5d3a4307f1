package exclude

import (
	"errors"
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
}

// ParsePattern compiles one pattern. Blank lines and "#" comments are not
// patterns; ParsePattern rejects them, as it rejects an unterminated "[" or
// a trailing "\".
func ParsePattern(s string) (*Pattern, error) {
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
	for _, part := range parts {
		if part == "" {
			return nil, errors.New(`empty path segment ("//")`)
		}
		seg, err := compileSegment(part)
		if err != nil {
			return nil, err
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
// it needs at least one (gitignore: "abc/**" does not match "abc").
func matchPath(segs []segment, s string) bool {
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
