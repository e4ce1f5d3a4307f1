// Package lexical turns chunk text and user queries into the terms of the
// keyword (BM25) index, lib/postings. Code identifiers are indexed whole
// and split into their camelCase/snake_case/digit parts, so
// `ReadFileHeader` is found by "ReadFileHeader" (an exact, rare term) and
// by "read file header". Queries are ORed term lists (Expr, a structure,
// never query syntax): a natural-language question matches every chunk
// sharing any of its words, and BM25 ranks chunks sharing more and rarer
// words first.
package lexical

import (
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

// IndexText returns the text to store in the full-text index for s: s itself
// (the FTS tokenizer lowercases and splits it, keeping '_' inside tokens)
// followed by the parts of every compound identifier in s.
func IndexText(s string) string {
	var extra []byte
	var buf [64]byte
	seen := map[string]struct{}{}
	textsplit.EachWord(s, func(tok string) {
		if textsplit.WholePart(tok) {
			return // its own only part: nothing to add
		}
		// A repeated word adds nothing.
		if _, ok := seen[tok]; ok {
			return
		}
		seen[tok] = struct{}{}
		// tok is one word, so its parts are SplitIdentifier(tok): written
		// lowercase, and taken back unless there are two or more.
		mark, n := len(extra), 0
		textsplit.EachPart(tok, func(p string) {
			n++
			extra = append(extra, ' ')
			extra = append(extra, lowerASCII(p, &buf)...)
		})
		if n < 2 {
			extra = extra[:mark]
		}
	})
	if len(extra) == 0 {
		return s
	}
	return s + "\n" + string(extra)
}

// MaxQueryTerms bounds the terms of one query (long pasted text).
const MaxQueryTerms = 48

// Terms returns the distinct lowercase search terms of a query: words, whole
// identifiers and identifier parts, without stopwords (unless the query has
// nothing else) and without one-letter words.
func Terms(q string) []string {
	var all, content []string
	seen := map[string]struct{}{}
	add := func(t string) {
		t = strings.ToLower(t)
		if utf8.RuneCountInString(t) < 2 {
			return
		}
		if _, ok := seen[t]; ok {
			return
		}
		seen[t] = struct{}{}
		all = append(all, t)
		if !IsStopword(t) {
			content = append(content, t)
		}
	}
	textsplit.EachWord(q, func(tok string) {
		add(tok)
		if parts := textsplit.SplitIdentifier(tok); len(parts) > 1 {
			for _, p := range parts {
				add(p)
			}
		}
	})
	out := content
	if len(out) == 0 {
		out = all
	}
	if len(out) > MaxQueryTerms {
		out = out[:MaxQueryTerms]
	}
	return out
}

// IsCodeLike reports whether a query token looks like a code identifier
// rather than an English word: mixed case inside the word, '_' or digits
// among letters.
func IsCodeLike(tok string) bool {
	return len(textsplit.SplitIdentifier(tok)) > 1
}

// CodeTokens returns the identifier-like tokens of q in their original case.
func CodeTokens(q string) []string {
	var out []string
	textsplit.EachWord(q, func(t string) {
		if IsCodeLike(t) {
			out = append(out, t)
		}
	})
	return out
}
