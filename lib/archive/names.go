package archive

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// CleanName validates a member name and returns it as a clean relative
// slash path. It rejects (FORBIDDEN, the zip-slip defence) names that are
// absolute, carry a drive letter or a ".." element, contain NUL or the Sep
// sequence, or are not UTF-8. Backslashes are taken as separators, as
// Windows tools write them.
func CleanName(name string) (string, error) {
	bad := func(why string) (string, error) {
		return "", errcode.New(errcode.Forbidden, "archive member %q rejected: %s", clip(name), why)
	}
	switch {
	case name == "":
		return bad("empty name")
	case !utf8.ValidString(name):
		return bad("name is not UTF-8")
	case strings.ContainsRune(name, 0):
		return bad("name contains NUL")
	}
	n := strings.ReplaceAll(name, "\\", "/")
	if strings.HasPrefix(n, "/") || (len(n) >= 2 && n[1] == ':') {
		return bad("absolute path")
	}
	for _, el := range strings.Split(n, "/") {
		if el == ".." {
			return bad(`".." escapes the archive`)
		}
	}
	if strings.Contains(n, Sep) {
		return bad(`name contains "` + Sep + `"`)
	}
	c := path.Clean(n)
	if c == "." {
		return bad("empty name")
	}
	return c, nil
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
