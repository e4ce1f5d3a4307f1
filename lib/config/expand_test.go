package config

import (
	"reflect"
	"testing"
)

func TestExpand(t *testing.T) {
	vars := env(map[string]string{"A": "x", "E": ""})
	cases := []struct {
		in, want string
		refs     []string
		literal  bool
	}{
		{"plain", "plain", nil, true},
		{"${A}", "x", []string{"A"}, false},
		{"${A:-d}", "x", []string{"A"}, false},
		{"${B:-d}", "d", []string{"B"}, true},
		{"${E:-d}", "d", []string{"E"}, true}, // empty counts as unset
		{"${B}", "", []string{"B"}, false},
		{"a${A}b", "axb", []string{"A"}, true},
		{"$${A}", "${A}", nil, true},
		{"cost $5 and x$", "cost $5 and x$", nil, true},
	}
	for _, c := range cases {
		x, err := expand(c.in, vars)
		if err != nil || x.value != c.want || !reflect.DeepEqual(x.refs, c.refs) || x.literal != c.literal {
			t.Errorf("%q → %+v %v; want %q refs %v literal %v", c.in, x, err, c.want, c.refs, c.literal)
		}
	}
	for _, bad := range []string{"${}", "${A", "${A:-x", "${1A}", "${A-x}"} {
		if _, err := expand(bad, vars); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseListText(t *testing.T) {
	cases := map[string][]string{
		"":             {},
		"a":            {"a"},
		" a , b ,":     {"a", "b"},
		`a\,b,c`:       {"a,b", "c"},
		`["x,y", "z"]`: {"x,y", "z"},
		"[A-Z]{2},b":   {"[A-Z]{2}", "b"},
		"[]":           {},
	}
	for in, want := range cases {
		if got := parseListText(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}
