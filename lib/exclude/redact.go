package exclude

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// SecretGroup names the capture group of a redaction pattern that holds
// the credential itself: "password=(?P<secret>[^&]+)" masks the value and
// keeps "password=". A pattern without it masks its whole match.
const SecretGroup = "secret"

// DefaultReplacement is the default security.redact.replacement.
const DefaultReplacement = "[REDACTED]"

// Redactor masks credentials inside text that is served: the spans its
// patterns match are replaced, the rest of the text is kept. Where
// excluding a file (the secret patterns of Engine) keeps all of it out of
// the index, a Redactor lets a file with a key in it stay searchable
// without the key. It is immutable and safe for concurrent use; a nil
// *Redactor masks nothing.
type Redactor struct {
	rules       *ruleSet
	replacement string
	fingerprint string
	// literals, when set, returns known secret values (the server's own
	// tokens and keys), masked wherever they occur as the patterns' matches
	// are.
	literals func() []string
}

// WithLiterals returns a copy of r that also masks every occurrence of
// the values returned by values, asked on each call (such as
// events.Secrets: the bearer token, the provider keys of this process).
func (r *Redactor) WithLiterals(values func() []string) *Redactor {
	if r == nil {
		return nil
	}
	c := *r
	c.literals = values
	return &c
}

// NewRedactor compiles patterns (regular expressions, optionally with a
// SecretGroup) into a Redactor that writes replacement over each match. A
// pattern that does not compile, or matches the empty string, is
// CONFIG_INVALID naming field[i].
//
// Only the patterns that are not built-in defaults (which the tests
// compile) are compiled here; the whole set is compiled once, on first use
// or by Compile, so a server need not wait ~0.1 s for the default rules
// before it listens.
func NewRedactor(field string, patterns []string, replacement string) (*Redactor, error) {
	if replacement == "" {
		return nil, errcode.FieldError(errcode.ConfigInvalid, "security.redact.replacement", "the replacement text must not be empty")
	}
	set := &ruleSet{lazyCompiled: lazyCompiled[[]redactRule]{patterns: patterns, checked: map[int][]redactRule{}}}
	r := &Redactor{replacement: replacement, rules: set}
	h := sha256.New()
	fmt.Fprintf(h, "redact/v1\x00%s\x00", replacement)
	for i, p := range patterns {
		if !builtinPattern(p) {
			rules, err := compileRedactRules(p)
			if err != nil {
				return nil, errcode.FieldError(errcode.ConfigInvalid, fmt.Sprintf("%s[%d]", field, i), "invalid redaction pattern %q: %v", p, err)
			}
			set.checked[i] = rules
		}
		fmt.Fprintf(h, "%s\x00", p)
	}
	r.fingerprint = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return r, nil
}

// ruleSet is the compiled rules of a Redactor's patterns, built once.
type ruleSet struct {
	lazyCompiled[[]redactRule] // validated by NewRedactor
	once                       sync.Once
	rules                      []redactRule
	lits                       *literalIndex // the rules' leading literals (nil: none)
}

// get returns the rules, compiling them on the first call. The patterns
// left to compile are built-in defaults, which compile.
func (s *ruleSet) get() []redactRule {
	s.once.Do(func() {
		for _, rules := range s.compiled(mustCompileRedactRules) {
			s.rules = append(s.rules, rules...)
		}
		s.lits = newLiteralIndex(s.rules)
	})
	return s.rules
}

// mustCompileRedactRules compiles a built-in pattern.
func mustCompileRedactRules(p string) []redactRule {
	rules, err := compileRedactRules(p)
	if err != nil {
		panic(fmt.Sprintf("exclude: built-in redaction pattern %q: %v", p, err))
	}
	return rules
}

// builtinPattern reports whether p is one of the default secret or
// redaction patterns.
func builtinPattern(p string) bool {
	builtinOnce.Do(func() {
		builtin = map[string]bool{}
		for _, d := range append(append([]string{}, DefaultSecretPatterns...), DefaultRedactPatterns...) {
			builtin[d] = true
		}
	})
	return builtin[p]
}

var (
	builtinOnce sync.Once
	builtin     map[string]bool
)

// Compile compiles the rules now (they are otherwise compiled on first
// use); a server calls it in the background after it starts listening.
func (r *Redactor) Compile() {
	if r != nil {
		r.rules.get()
	}
}

// redactRule is one top-level alternative of a redaction pattern. Its
// matches are found the way secret patterns are checked (secret.go): at
// each occurrence of one of its leading literals the alternative is tried
// anchored there, so the regexp never scans text where no match can
// start. A leading \b, whose left side an anchored try cannot see, is
// checked by hand. An alternative without leading literals is searched with
// its regexp over the whole content.
type redactRule struct {
	alt      *alternative   // strategies of the alternative without its leading \b; nil = regexp only
	boundary bool           // the alternative starts with \b
	whole    *regexp.Regexp // the alternative as written
	litIDs   []int32        // alt.lits in the ruleSet's literalIndex
}

// topAlternatives returns the alternatives of a pattern's tree: its
// subexpressions when it is an alternation, else the tree itself.
func topAlternatives(tree *syntax.Regexp) []*syntax.Regexp {
	if tree.Op == syntax.OpAlternate {
		return tree.Sub
	}
	return []*syntax.Regexp{tree}
}

// withoutBoundary returns sub without the \b it starts with, and whether
// it starts with one (and more).
func withoutBoundary(sub *syntax.Regexp) (*syntax.Regexp, bool) {
	if sub.Op != syntax.OpConcat || len(sub.Sub) < 2 || sub.Sub[0].Op != syntax.OpWordBoundary {
		return sub, false
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Flags: sub.Flags, Sub: sub.Sub[1:]}, true
}

func compileRedactRules(pattern string) ([]redactRule, error) {
	if _, err := checkPattern(pattern); err != nil {
		return nil, err
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	subs := topAlternatives(tree)
	srcs := subSources(pattern, tree, subs)
	var rules []redactRule
	for i, sub := range subs {
		src := srcs[i]
		whole, err := regexp.Compile(src)
		if err != nil {
			// The alternative's source does not compile: search the pattern
			// as written.
			return []redactRule{{whole: regexp.MustCompile(pattern)}}, nil
		}
		r := redactRule{whole: whole}
		core, coreSrc := sub, src
		if c, ok := withoutBoundary(sub); ok {
			core, coreSrc, r.boundary = c, sourceOf(c, withoutLeadingBoundary(src)), true
		}
		if a, err := compileAlternative(core, coreSrc); err == nil {
			r.alt = a
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// find calls emit with each match of the rule in content: the regexp that
// matched, its submatch indexes and the offset they are relative to. The
// leading literals' offsets come from lits (one pass for all rules) when
// set and the content is not over maxOccLen.
func (r *redactRule) find(content []byte, st *matchState, lits *literalIndex, emit func(re *regexp.Regexp, m []int, base int)) {
	a := r.alt
	fallback := a == nil || a.anchored == nil
	for i := 0; !fallback && i < len(a.escapes); i++ {
		fallback = st.holds(a.escapes[i])
	}
	if fallback {
		// Without leading literals the alternative's cheapest verdict
		// (a run scan, required runs) decides first whether to search.
		if a != nil && !a.match(content, st) {
			return
		}
		for _, m := range r.whole.FindAllSubmatchIndex(content, -1) {
			emit(r.whole, m, 0)
		}
		return
	}
	// The runs every match needs are checked at the first occurrence of a
	// leading literal: on clean text most rules find none, and looking
	// for a literal (its offsets are shared by all rules) is cheaper than
	// looking for a run.
	needs := 0 // 1 present, -1 missing, 0 not checked yet
	visit := func(start int) bool {
		if r.boundary && !wordBoundary(content, start) {
			return false
		}
		if needs == 0 {
			needs = 1
			if !a.needsMet(content) {
				needs = -1
				return true
			}
		}
		if m := a.anchored.FindSubmatchIndex(content[start:]); m != nil {
			emit(a.anchored, m, start)
		}
		return false
	}
	if lits != nil && len(r.litIDs) == len(a.lits) && len(content) <= maxOccLen {
		occ := st.literalOffsets(lits)
		for _, id := range r.litIDs {
			for _, start := range occ[id] {
				if visit(start) {
					return
				}
			}
		}
		return
	}
	for i := 0; i < len(a.lits) && needs >= 0; i++ {
		eachLiteral(content, &a.lits[i], st, visit)
	}
}

// wordBoundary reports whether \b holds before content[i].
func wordBoundary(content []byte, i int) bool {
	before := i > 0 && isWordByte(content[i-1])
	after := i < len(content) && isWordByte(content[i])
	return before != after
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// Enabled reports whether r masks anything (it has patterns).
func (r *Redactor) Enabled() bool { return r != nil && len(r.rules.patterns) > 0 }

// Replacement is the text written over a masked span ("" for a nil r).
func (r *Redactor) Replacement() string {
	if r == nil {
		return ""
	}
	return r.replacement
}

// Fingerprint identifies the patterns and the replacement ("" for a nil
// r): text masked under another fingerprint must be masked again.
func (r *Redactor) Fingerprint() string {
	if r == nil {
		return ""
	}
	return r.fingerprint
}

// spans returns the merged, sorted byte ranges of content to mask.
func (r *Redactor) spans(content []byte) [][2]int {
	if !r.Enabled() || len(content) == 0 {
		return nil
	}
	rules := r.rules.get()
	return r.spansWith(content, rules, r.rules.lits)
}

// spansWith is spans with the rules' literals found through lits (nil:
// literal by literal, eachLiteral).
func (r *Redactor) spansWith(content []byte, rules []redactRule, lits *literalIndex) [][2]int {
	st := statePool.Get().(*matchState)
	st.reset(content)
	defer func() {
		st.content = nil // the pool keeps no caller's bytes
		statePool.Put(st)
	}()
	out := r.literalSpans(content)
	// On ASCII text a rule led by literals matches only where one occurs
	// (its fallback to the whole regexp is for non-ASCII runes): the rules
	// none of whose literals occur are skipped.
	var live []bool
	if lits != nil && len(content) <= maxOccLen && !st.hasNonASCII() {
		live = st.liveRules(lits, len(rules))
	}
	for i := range rules {
		if live != nil && rules[i].litIDs != nil && !live[i] {
			continue
		}
		rules[i].find(content, st, lits, func(re *regexp.Regexp, m []int, base int) {
			lo, hi := m[0], m[1]
			if g := re.SubexpIndex(SecretGroup); g > 0 && m[2*g] >= 0 {
				lo, hi = m[2*g], m[2*g+1]
			}
			if hi > lo && !maskedInPlace(content[base+lo:base+hi]) {
				out = append(out, [2]int{base + lo, base + hi})
			}
		})
	}
	if len(out) < 2 {
		return out
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	merged := out[:1]
	for _, s := range out[1:] {
		last := &merged[len(merged)-1]
		if s[0] <= last[1] {
			last[1] = max(last[1], s[1])
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// Finds reports whether Mask would mask anything in content: a check
// for text that is usually clean, without building a masked copy.
func (r *Redactor) Finds(content []byte) bool {
	return len(r.spans(content)) > 0
}

// Mask returns s with every credential replaced and how many spans were
// masked. The line breaks inside a masked span are kept after the
// replacement, so line numbers (citations, line ranges) stay valid: a
// 30-line private key block becomes the replacement and 29 empty lines.
func (r *Redactor) Mask(s string) (string, int) {
	if !r.Enabled() || s == "" {
		return s, 0
	}
	sp := r.spans(unsafe.Slice(unsafe.StringData(s), len(s))) // spans only reads it
	if len(sp) == 0 {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, x := range sp {
		b.WriteString(s[at:x[0]])
		b.WriteString(r.replacement)
		b.WriteString(strings.Repeat("\n", strings.Count(s[x[0]:x[1]], "\n")))
		at = x[1]
	}
	b.WriteString(s[at:])
	return b.String(), len(sp)
}

// MaskBytes masks binary content in place of the same length: each byte of
// a masked span but line breaks becomes '*', so offsets into the content
// (and the structure of most binary formats) are kept. It returns a copy
// when anything was masked, data itself otherwise.
func (r *Redactor) MaskBytes(data []byte) ([]byte, int) {
	return r.MaskWindow(data, 0, len(data))
}

// MaskWindow masks data as MaskBytes does and returns data[lo:hi] of the
// result, with the number of masked spans that overlap it. Masking the
// whole of a window and only then cutting the range out of it masks a
// credential the range cuts in two, which masking the range alone would
// not recognise.
func (r *Redactor) MaskWindow(data []byte, lo, hi int) ([]byte, int) {
	sp := r.spans(data)
	n := 0
	for _, x := range sp {
		if x[0] < hi && x[1] > lo {
			n++
		}
	}
	if len(sp) == 0 {
		return data[lo:hi], 0
	}
	out := append([]byte(nil), data...)
	for _, x := range sp {
		for i := x[0]; i < x[1]; i++ {
			if out[i] != '\n' {
				out[i] = '*'
			}
		}
	}
	return out[lo:hi], n
}

// maskedInPlace reports whether a match is only what MaskBytes writes
// ('*' for each byte but line breaks): masked already, say a cut of a
// masked file whose "password=****" the patterns recognise again. Masking
// it again would change the length of content whose offsets must hold.
func maskedInPlace(b []byte) bool {
	for _, c := range b {
		if c != '*' && c != '\n' {
			return false
		}
	}
	return true
}

// literalSpans returns where the literal secret values occur in content.
func (r *Redactor) literalSpans(content []byte) [][2]int {
	if r.literals == nil || len(content) == 0 {
		return nil
	}
	text := unsafe.String(&content[0], len(content)) // read only here
	var out [][2]int
	for _, v := range r.literals() {
		if v == "" {
			continue
		}
		for at := 0; ; {
			i := strings.Index(text[at:], v)
			if i < 0 {
				break
			}
			out = append(out, [2]int{at + i, at + i + len(v)})
			at += i + len(v)
		}
	}
	return out
}

// Count reports how many masked spans s shows: occurrences of the
// replacement text, however they got there (masked now, or when the text
// was indexed).
func (r *Redactor) Count(s string) int {
	if !r.Enabled() {
		return 0
	}
	return strings.Count(s, r.replacement)
}

// MaskValue masks every string inside v, a value decoded from JSON into
// any (maps, slices, strings, numbers), in place for maps and slices, and
// returns the new value and how many spans were masked. Map keys are kept.
func (r *Redactor) MaskValue(v any) (any, int) {
	if !r.Enabled() {
		return v, 0
	}
	switch x := v.(type) {
	case string:
		return r.Mask(x)
	case map[string]any:
		n := 0
		for k, e := range x {
			m, c := r.MaskValue(e)
			x[k], n = m, n+c
		}
		return x, n
	case []any:
		n := 0
		for i, e := range x {
			m, c := r.MaskValue(e)
			x[i], n = m, n+c
		}
		return x, n
	}
	return v, 0
}

// MaskJSON masks the string values of a JSON document, keeping its
// structure (numbers are kept exactly); raw that is not JSON is masked as
// text. A document with nothing to mask comes back as it was. Values are
// matched decoded: a rule anchored at a value's end, or a credential behind
// escapes, does not match the raw bytes.
func (r *Redactor) MaskJSON(raw []byte) ([]byte, int) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return r.MaskBytes(raw)
	}
	v, n := r.MaskValue(v)
	if n == 0 {
		return raw, 0
	}
	out, err := json.Marshal(v)
	if err != nil {
		return r.MaskBytes(raw)
	}
	return out, n
}
