package exclude

import "strings"

// fileIndex finds the pattern of a Rules list that decides a file path
// (Rules.Decide with isDir false) without trying every pattern: the
// deciding pattern is the last one that matches, so it is the matching
// pattern of highest index, and most patterns can only match a path with
// one given base name (a literal name: ".env", "id_rsa"; or a literal last
// segment: ".aws/credentials"), a name suffix ("*.pem") or a name prefix
// (".env.*"). Those are looked up by the path's base name; the rest are
// tried in turn. The scan checks every file against security.path_excludes
// (26 patterns by default), and the server every file it serves.
type fileIndex struct {
	byName   map[string][]int // patterns whose last segment is this literal name
	suffixes []litPattern     // unanchored "*lit"
	prefixes []litPattern     // unanchored "lit*"
	others   []int            // everything else that can match a file
}

type litPattern struct {
	lit string
	i   int
}

// newFileIndex indexes r. With inDirs, it is only asked about files whose
// parent directories r does not exclude, all of them checked with their
// "**/name/**" patterns (Engine.dirExcluded does, when no pattern is
// negated): such a pattern cannot match those files, and is left out.
func newFileIndex(r Rules, inDirs bool) *fileIndex {
	x := &fileIndex{byName: map[string][]int{}}
	for i, p := range r {
		if p.DirOnly {
			continue // never matches a file
		}
		if inDirs && p.inside != nil {
			continue
		}
		last := p.segs[len(p.segs)-1]
		switch {
		case last.kind == segLiteral:
			x.byName[last.lit] = append(x.byName[last.lit], i)
		case !p.anchored && last.kind == segSuffix:
			x.suffixes = append(x.suffixes, litPattern{last.lit, i})
		case !p.anchored && last.kind == segPrefix:
			x.prefixes = append(x.prefixes, litPattern{last.lit, i})
		default:
			x.others = append(x.others, i)
		}
	}
	return x
}

// decide is r.Decide(relPath, false) for the r the index was built from.
func (x *fileIndex) decide(r Rules, relPath string) *Pattern {
	base := relPath
	if i := strings.LastIndexByte(relPath, '/'); i >= 0 {
		base = relPath[i+1:]
	}
	best := -1
	for _, i := range x.byName[base] {
		if i > best && r[i].Match(relPath, false) {
			best = i
		}
	}
	for _, l := range x.suffixes {
		if l.i > best && strings.HasSuffix(base, l.lit) {
			best = l.i
		}
	}
	for _, l := range x.prefixes {
		if l.i > best && strings.HasPrefix(base, l.lit) {
			best = l.i
		}
	}
	for _, i := range x.others {
		if i > best && r[i].Match(relPath, false) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	return r[best]
}

// FileRules is a Rules list indexed to decide file paths: Decide gives
// Rules.Decide(relPath, false) without trying every pattern.
type FileRules struct {
	rules Rules
	x     *fileIndex
}

// ForFiles indexes r for deciding file paths.
func (r Rules) ForFiles() *FileRules { return &FileRules{rules: r, x: newFileIndex(r, false)} }

// Decide is Rules.Decide(relPath, false).
func (f *FileRules) Decide(relPath string) *Pattern { return f.x.decide(f.rules, relPath) }
