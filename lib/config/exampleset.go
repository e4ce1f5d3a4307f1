package config

import (
	"regexp"
	"sort"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"gopkg.in/yaml.v3"
)

// templateKey matches a "key: value  # comment" line of the template.
var templateKey = regexp.MustCompile(`^( *)([A-Za-z0-9_]+):( *)(.*)$`)

// ExampleYAMLWith returns ExampleYAML with the values of the given key
// paths replaced (comments and layout kept), for the `config init`
// wizard. Values are YAML-quoted as needed. Only scalar keys written on
// one line can be set; any other key is CONFIG_INVALID.
func ExampleYAMLWith(values map[string]string) (string, error) {
	type level struct {
		indent int
		key    string
	}
	var stack []level
	done := map[string]bool{}
	lines := strings.Split(ExampleYAML(), "\n")
	for i, ln := range lines {
		m := templateKey.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		indent := len(m[1])
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, level{indent, m[2]})
		keys := make([]string, len(stack))
		for j, l := range stack {
			keys[j] = l.key
		}
		p := strings.Join(keys, ".")
		v, ok := values[p]
		if !ok {
			continue
		}
		val, comment := splitComment(m[4])
		if val == "" || val == "|" || leafByPath[p] == nil {
			return "", errcode.FieldError(errcode.ConfigInvalid, p, "%s cannot be set by the setup wizard", p)
		}
		b, err := yaml.Marshal(v)
		if err != nil {
			return "", errcode.Wrap(errcode.ConfigInvalid, err, "%s: %v", p, err)
		}
		nv := strings.TrimSuffix(string(b), "\n")
		pad := ""
		if comment != "" { // keep the comment's column
			pad = strings.Repeat(" ", max(1, len(m[4])-len(comment)-len(nv)))
		}
		lines[i] = m[1] + m[2] + ":" + m[3] + nv + pad + comment
		done[p] = true
	}
	var missing []string
	for p := range values {
		if !done[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return "", errcode.FieldError(errcode.ConfigInvalid, missing[0], "%s is not a key of the config template", strings.Join(missing, ", "))
	}
	return strings.Join(lines, "\n"), nil
}

// splitComment splits a template value from its trailing "# comment",
// ignoring "#" inside quotes.
func splitComment(s string) (value, comment string) {
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || s[i-1] == ' '):
			return strings.TrimRight(s[:i], " "), s[i:]
		}
	}
	return strings.TrimRight(s, " "), ""
}
