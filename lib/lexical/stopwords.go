package lexical

// stopwords are English function words that carry no retrieval signal in an
// ORed BM25 query; matching on them only adds noise and cost.
var stopwords = map[string]struct{}{}

func init() {
	for _, w := range []string{
		"a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
		"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "could", "did", "do", "does", "doing", "done", "down", "during", "each", "either", "else", "etc",
		"few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his",
		"how", "however", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "me", "might", "more",
		"most", "much", "must", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "one", "only", "or",
		"other", "our", "out", "over", "own", "per", "please", "same", "shall", "she", "should", "so", "some",
		"such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
		"through", "thus", "to", "too", "under", "until", "up", "upon", "us", "very", "via", "was", "we", "were",
		"what", "when", "where", "whether", "which", "while", "who", "whom", "whose", "why", "will", "with",
		"within", "without", "would", "yet", "you", "your", "yours",
	} {
		stopwords[w] = struct{}{}
	}
}

// IsStopword reports whether a lowercase word is an English stopword.
func IsStopword(w string) bool {
	_, ok := stopwords[w]
	return ok
}
