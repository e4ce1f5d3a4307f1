package corpus

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

var (
	secretRuleRE = regexp.MustCompile(`security\.secret_patterns\[(\d+)\]( \([a-z_]+(?: \(spec form\))?\))?`)
	pathRuleRE   = regexp.MustCompile(`security\.path_excludes pattern ("(?:[^"\\]|\\.)*")`)
)

// ExclusionRule names the rule that excluded a document, from the reason
// indexing recorded: "security.secret_patterns[3] (generic_token)" or
// "security.path_excludes \"**/.env\"" ("" when the reason names none).
// secretPatterns are the configured patterns, to name default ones (nil:
// the kind the reason recorded, if any). It never includes what the rule
// matched.
func ExclusionRule(reason string, secretPatterns []string) string {
	if m := secretRuleRE.FindStringSubmatch(reason); m != nil {
		rule := strings.TrimSuffix(m[0], m[2])
		if i, err := strconv.Atoi(m[1]); err == nil && i < len(secretPatterns) {
			if k := exclude.SecretKindOf(secretPatterns[i]); k != "" {
				rule += " (" + k + ")"
			}
		} else {
			rule += m[2]
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

// Excluded is a document kept from clients for security and the rule that
// excluded it (never what the rule matched).
type Excluded struct {
	RelPath string `json:"rel_path"`
	Code    string `json:"code"`
	Rule    string `json:"rule"`
}

// ExcludedDocs lists the documents indexing excluded with one of codes
// (SECRET_EXCLUDED, PATH_EXCLUDED) within the path prefixes within (nil:
// all), in rel_path order, each with its rule named from secretPatterns
// (see ExclusionRule).
func ExcludedDocs(ctx context.Context, st *store.Store, codes, within, secretPatterns []string) ([]Excluded, error) {
	docs, err := st.Documents(ctx, store.DocQuery{MaxSize: -1, OnlyCodes: codes, Within: within}, nil, 0)
	if err != nil {
		return nil, err
	}
	out := make([]Excluded, 0, len(docs))
	for _, d := range docs {
		out = append(out, Excluded{RelPath: d.RelPath, Code: d.ErrorCode, Rule: ExclusionRule(d.Error, secretPatterns)})
	}
	return out, nil
}

// ExcludedLine says in one line which files were excluded as secrets and
// by which rule, naming at most max of them ("" when none).
func ExcludedLine(files []Excluded, max int) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d file(s) excluded as secrets, never served:", len(files))
	for i, f := range files {
		if i == max {
			fmt.Fprintf(&b, " … %d more", len(files)-i)
			break
		}
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %s (%s)", sep, f.RelPath, cmp.Or(f.Rule, f.Code))
	}
	b.WriteString(" — a false positive? see dir2mcp status --excluded")
	return b.String()
}
