package config

import (
	"fmt"
	"strings"
)

// lookupFunc reads an environment variable (os.LookupEnv's shape).
type lookupFunc func(string) (string, bool)

// expansion is the result of expanding ${VAR} references in a value.
type expansion struct {
	value string
	refs  []string // referenced variable names, in order
	unset []string // referenced variables that were unset or empty and had no default
	// literal reports whether s had text outside references (a default
	// counts as literal text).
	literal bool
}

// expand replaces ${VAR} with the variable's value and ${VAR:-default} with
// the value, or default when VAR is unset or empty. "$${" is a literal "${".
// Any other "$" is kept as is, so regexes like "foo$" are unaffected.
func expand(s string, lookup lookupFunc) (expansion, error) {
	var x expansion
	if !strings.Contains(s, "${") {
		x.value, x.literal = s, s != ""
		return x, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "$${") {
			b.WriteString("${")
			x.literal = true
			i += 3
			continue
		}
		if !strings.HasPrefix(s[i:], "${") {
			b.WriteByte(s[i])
			x.literal = true
			i++
			continue
		}
		j := i + 2
		for j < len(s) && isNameByte(s[j], j == i+2) {
			j++
		}
		name := s[i+2 : j]
		if name == "" {
			return x, fmt.Errorf("bad reference %q: want ${NAME} or ${NAME:-default}", clip(s[i:]))
		}
		var def string
		hasDef := false
		switch {
		case j < len(s) && s[j] == '}':
			j++
		case strings.HasPrefix(s[j:], ":-"):
			end := strings.IndexByte(s[j:], '}')
			if end < 0 {
				return x, fmt.Errorf("unterminated reference %q: missing }", clip(s[i:]))
			}
			def, hasDef = s[j+2:j+end], true
			j += end + 1
		default:
			return x, fmt.Errorf("bad reference %q: want ${NAME} or ${NAME:-default}", clip(s[i:]))
		}
		x.refs = append(x.refs, name)
		v, ok := lookup(name)
		switch {
		case ok && v != "":
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
			x.literal = x.literal || def != ""
		default:
			x.unset = append(x.unset, name)
		}
		i = j
	}
	x.value = b.String()
	return x, nil
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || !first && c >= '0' && c <= '9'
}

// validEnvName reports whether s is a usable environment variable name.
func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i], i == 0) {
			return false
		}
	}
	return true
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
