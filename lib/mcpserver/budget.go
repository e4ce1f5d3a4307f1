package mcpserver

import (
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
)

// Output budgets: max_tokens on search, grep and open_file. Tokens are
// estimated as lib/chunk does for context budgets (about four characters
// of prose per token); open_file, which cuts text by size, applies a
// budget as charsPerToken characters per token.
const charsPerToken = 4

var maxTokensParam = atLeast("max_tokens", "output budget in estimated tokens (about 4 characters each); what does not fit is cut and the result says what was left out", 50, 1<<24)

// tokens estimates the tokens of s.
func tokens(s string) int { return chunk.TokensEstimate(s) }

// clipTokens cuts s to whole lines within limit estimated tokens (a first
// line longer than that to limit×charsPerToken bytes); it reports whether
// anything was cut.
func clipTokens(s string, limit int) (string, bool) {
	if tokens(s) <= limit {
		return s, false
	}
	limit = max(limit, 1)
	used, end := 0, 0
	for end < len(s) {
		next := strings.IndexByte(s[end:], '\n')
		if next < 0 {
			next = len(s) - end
		}
		used += tokens(s[end:end+next]) + 1
		if used > limit {
			break
		}
		end += next + 1
	}
	if end == 0 {
		t, _ := clipText(s, limit*charsPerToken)
		return t, true
	}
	return strings.TrimSuffix(s[:min(end, len(s))], "\n"), true
}
