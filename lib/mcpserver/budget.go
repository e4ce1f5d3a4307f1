package mcpserver

import "github.com/dir2mcp/dir2mcp/lib/chunk"

// Output budgets: max_tokens on search, grep and open_file. Tokens are
// estimated as lib/chunk does for context budgets (about four characters
// of prose per token); open_file, which cuts text by size, applies a
// budget as charsPerToken characters per token.
const charsPerToken = 4

var maxTokensParam = atLeast("max_tokens", "output budget in estimated tokens (about 4 characters each); what does not fit is cut and the result says what was left out", 50, 1<<24)

// tokens estimates the tokens of s.
func tokens(s string) int { return chunk.TokensEstimate(s) }
