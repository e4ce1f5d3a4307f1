package corpus

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/dir2mcp/dir2mcp/lib/exclude"
)

var (
	secretRuleRE = regexp.MustCompile(`security\.secret_patterns\[(\d+)\]`)
	pathRuleRE   = regexp.MustCompile(`security\.path_excludes pattern ("(?:[^"\\]|\\.)*")`)
)

// ExclusionRule names the rule that excluded a document, from the reason
// indexing recorded: "security.secret_patterns[3] (generic_token)" or
// "security.path_excludes \"**/.env\"" ("" when the reason names none).
// secretPatterns are the configured patterns, to name default ones. It
// never includes what the rule matched.
func ExclusionRule(reason string, secretPatterns []string) string {
	if m := secretRuleRE.FindStringSubmatch(reason); m != nil {
		rule := m[0]
		if i, err := strconv.Atoi(m[1]); err == nil && i < len(secretPatterns) {
			if k := exclude.SecretKindOf(secretPatterns[i]); k != "" {
				rule += " (" + k + ")"
			}
		}
		return rule
	}
	if m := pathRuleRE.FindStringSubmatch(reason); m != nil {
		if p, err := strconv.Unquote(m[1]); err == nil {
			return fmt.Sprintf("security.path_excludes %q", p)
		}
	}
	return ""
}
