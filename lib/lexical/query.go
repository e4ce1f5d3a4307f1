package lexical

import (
	"strings"
	"unicode"

	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

// Query is a user query parsed once for every use a search makes of it:
// its full-text terms, the identifiers it names, and its words for phrase
// matching.
type Query struct {
	// Text is the query as typed, trimmed.
	Text string
	// Terms are the distinct full-text search terms (see Terms).
	Terms []string
	// Idents are the identifier-like tokens in their original case (see
	// CodeTokens).
	Idents []string
	// Name is the identifier a query of one bare name asks for
	// ("rmtree", "ThreadPoolExecutor", "os.path.join" → "join",
	// "Vec::push" → "push"); "" for any other query.
	Name string
	// words are the query's words, lowercased and stemmed, in order,
	// stopwords kept (for PhraseCoverage).
	words []string
	set   TermSet
}

// Parse parses a query.
func Parse(q string) *Query {
	q = strings.TrimSpace(q)
	p := &Query{Text: q, Terms: Terms(q), Idents: CodeTokens(q), Name: bareName(q)}
	p.words = phraseWords(q)
	p.set = NewTermSet(p.Terms)
	return p
}

// TermSet is the query's terms normalised for matching text.
func (q *Query) TermSet() TermSet { return q.set }

// Match is the expression of rows holding any of the query's terms.
func (q *Query) Match() Expr { return AnyOf(q.Terms) }

// IdentMatch matches rows holding one of the identifiers the query names
// whole (identifiers of four or more characters; "" when it names none).
func (q *Query) IdentMatch() Expr {
	var ids []string
	for _, t := range q.Idents {
		if len(t) >= 4 {
			ids = append(ids, strings.ToLower(t))
		}
	}
	return AnyOf(ids)
}

// PhraseCoverage is the share of the query's adjacent word pairs (in order,
// lowercase, stemmed, stopwords kept) that also occur adjacent in text: near
// 1 when text says what the query says in the same words, near 0 when it
// merely shares some of them. A query of fewer than two words has no pairs;
// its coverage is the share of its terms text holds (see TermSet.Covered).
func (q *Query) PhraseCoverage(text string) float64 {
	if len(q.words) < 2 {
		if len(q.set) == 0 {
			return 0
		}
		return float64(len(q.set.Covered(text))) / float64(len(q.set))
	}
	// Only pairs of two query words can count: any other word is left
	// unstemmed and breaks the chain ("").
	var first initials
	inQuery := make(map[string]bool, len(q.words))
	for _, w := range q.words {
		first.add(w)
		inQuery[w] = true
	}
	pairs := map[[2]string]bool{}
	var prev string
	var buf [64]byte
	textsplit.EachWord(text, func(w string) {
		if !first.mayStem(w) {
			prev = ""
			return
		}
		w = Stem(lowerASCII(w, &buf))
		if !inQuery[w] {
			prev = ""
			return
		}
		w = strings.Clone(w) // it may point into buf
		if prev != "" {
			pairs[[2]string{prev, w}] = true
		}
		prev = w
	})
	n := 0
	for i := 1; i < len(q.words); i++ {
		if pairs[[2]string{q.words[i-1], q.words[i]}] {
			n++
		}
	}
	return float64(n) / float64(len(q.words)-1)
}

func phraseWords(s string) []string {
	var out []string
	textsplit.EachWord(s, func(w string) { out = append(out, Stem(strings.ToLower(w))) })
	return out
}

// bareName is the identifier q names when q is nothing but one (possibly
// qualified: a.b.c, a::b, a#b) name of at least two characters.
func bareName(q string) string {
	if q == "" || strings.ContainsAny(q, " \t\n") {
		return ""
	}
	q = strings.TrimSuffix(strings.TrimSuffix(q, "()"), "!")
	if i := strings.LastIndexAny(q, ".:#"); i >= 0 {
		q = q[i+1:]
	}
	if len(q) < 2 {
		return ""
	}
	for i, r := range q {
		if !(r == '_' || r == '$' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return ""
		}
	}
	return q
}
