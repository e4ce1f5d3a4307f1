package scan

import (
	"fmt"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
)

// DefaultIgnore is the built-in ignore list, in gitignore syntax relative to
// the root. It holds SPEC §7.1's list (.git/, node_modules/, dist/, build/,
// .venv/, .dir2mcp/) plus entries that never hold files a user searches:
//
//   - version-control metadata: ".git" stands for .git/ and also matches
//     the .git file of worktrees and submodules; .hg/, .svn/, .bzr/;
//   - tool caches: __pycache__/, .mypy_cache/, .pytest_cache/, .ruff_cache/,
//     .tox/, .nox/, .gradle/, .next/, .nuxt/, .svelte-kit/, .parcel-cache/,
//     .terraform/;
//   - IDE state: .idea/;
//   - OS litter: .DS_Store, Thumbs.db;
//   - dir2mcp's own config file at the root, /.dir2mcp.yaml, which may hold
//     credentials.
//
// Ambiguous names are left alone: vendor/ and target/ can hold sources,
// venv/ may be a project directory. Options.Ignore patterns come after these,
// so a negation there re-includes a default ("!build/").
var DefaultIgnore = []string{
	".git", "node_modules/", "dist/", "build/", ".venv/", ".dir2mcp/",
	".hg/", ".svn/", ".bzr/",
	"__pycache__/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".tox/", ".nox/", ".gradle/",
	".next/", ".nuxt/", ".svelte-kit/", ".parcel-cache/", ".terraform/",
	".idea/",
	".DS_Store", "Thumbs.db",
	"/.dir2mcp.yaml",
}

// baseRules compiles DefaultIgnore followed by the user's extra patterns.
// A bad user pattern is CONFIG_INVALID naming ingest.ignore[i].
func baseRules(extra []string) (exclude.Rules, error) {
	var rules exclude.Rules
	for _, s := range DefaultIgnore {
		p, err := exclude.ParsePattern(s)
		if err != nil {
			return nil, fmt.Errorf("scan: built-in ignore %q: %w", s, err)
		}
		rules = append(rules, p)
	}
	for i, s := range extra {
		p, err := exclude.ParsePattern(s)
		if err != nil {
			return nil, errcode.FieldError(errcode.ConfigInvalid, fmt.Sprintf("ingest.ignore[%d]", i),
				"invalid ignore pattern %q: %v", s, err)
		}
		rules = append(rules, p)
	}
	return rules, nil
}
