package scan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/exclude"
)

// Where a counted rule comes from (RuleHits.Kind).
const (
	ruleGitignore    = "gitignore"
	ruleIngestIgnore = "ingest.ignore"
	ruleExclude      = "security.path_excludes"
)

// RuleHits is one ignore or exclude rule and how many directory entries it
// passed over (an ignored directory counts once, whatever it holds).
type RuleHits struct {
	// Rule is where the rule is written: ".gitignore:312: /*",
	// "ingest.ignore[0]: docs/", "security.path_excludes: **/private/".
	Rule  string
	Kind  string // gitignore | ingest.ignore | security.path_excludes
	Count int
}

// ruleCounts counts entries per rule; the built-in ignore list is not
// counted (its entries are never what a user wants indexed).
type ruleCounts struct {
	hits   map[string]*RuleHits
	labels map[*exclude.Pattern]string // gitignore pattern → Rule, computed once
}

func (c *ruleCounts) add(rule, kind string) {
	if c.hits == nil {
		c.hits = map[string]*RuleHits{}
	}
	h := c.hits[rule]
	if h == nil {
		h = &RuleHits{Rule: rule, Kind: kind}
		c.hits[rule] = h
	}
	h.Count++
}

func (c *ruleCounts) addGit(pat *exclude.Pattern, f *ignoreFrame) {
	if c.labels == nil {
		c.labels = map[*exclude.Pattern]string{}
	}
	label, ok := c.labels[pat]
	if !ok {
		label = f.where(pat)
		c.labels[pat] = label
	}
	c.add(label, ruleGitignore)
}

// sorted lists the rules, most entries first.
func (c *ruleCounts) sorted() []RuleHits {
	out := make([]RuleHits, 0, len(c.hits))
	for _, h := range c.hits {
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

// A walk is mostly ignored when rules passed over every entry it met, or at
// least hintShare of more than hintMinEntries entries.
const (
	hintMinEntries = 10
	hintShare      = 0.9
	hintRules      = 3 // rules named in the hint
)

// IgnoreHint says, when ignore rules or excludes (the .gitignore files,
// ingest.ignore, security.path_excludes; not the built-in list) left
// nothing or almost nothing to index, which rules did it and how to
// override them; otherwise it returns "".
func (st Stats) IgnoreHint() string {
	n := 0
	for _, h := range st.IgnoredBy {
		n += h.Count
	}
	mostly := st.Scanned == 0 || st.Entries > hintMinEntries && float64(n) >= hintShare*float64(st.Entries)
	if n == 0 || !mostly {
		return ""
	}
	var rules, fixes []string
	fixed := map[string]bool{}
	for i, h := range st.IgnoredBy {
		if i == hintRules {
			rules = append(rules, fmt.Sprintf("%d more", len(st.IgnoredBy)-i))
			break
		}
		rules = append(rules, fmt.Sprintf("%s (%d)", h.Rule, h.Count))
		if !fixed[h.Kind] {
			fixed[h.Kind] = true
			fixes = append(fixes, overrides[h.Kind])
		}
	}
	return fmt.Sprintf("nothing or almost nothing to index: ignore rules passed over %d of %d entries (%d files scanned), by %s. To index them, %s",
		n, st.Entries, st.Scanned, strings.Join(rules, ", "), strings.Join(fixes, "; or "))
}

// overrides says how to lift a rule of each kind.
var overrides = map[string]string{
	ruleGitignore:    "set `ingest.gitignore: false` in .dir2mcp.yaml (or DIR2MCP_INGEST_GITIGNORE=false), or edit that ignore file line",
	ruleIngestIgnore: "remove the pattern from ingest.ignore (or add a \"!\" pattern after it)",
	ruleExclude:      "remove the pattern from security.path_excludes",
}
