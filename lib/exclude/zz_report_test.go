package exclude

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

func TestZZReport(t *testing.T) {
	files := gorootCorpus(t)
	type pc struct{ name, pat string }
	pats := []pc{}
	for i, p := range DefaultSecretPatterns {
		pats = append(pats, pc{fmt.Sprintf("default[%d]", i), p})
	}
	pats = append(pats, pc{"default[1] keyword branch", `(?i)aws(.{0,20})?secret`}, pc{"default[1] 40-char branch", `([0-9a-zA-Z/+=]{40})`}, pc{"tuned[1]", TunedSecretPatterns[1]})
	for _, p := range pats {
		e, _ := New(nil, []string{p.pat})
		var hits []string
		byExt := map[string]int{}
		for _, f := range files {
			if _, ok := e.SecretMatch(f.data); ok {
				hits = append(hits, f.rel)
				ext := f.rel[strings.LastIndex(f.rel, "."):]
				byExt[ext]++
			}
		}
		sort.Strings(hits)
		ex := []string{}
		step := len(hits)/6 + 1
		for i := 0; i < len(hits); i += step {
			ex = append(ex, hits[i])
		}
		fmt.Printf("%-28s %5d files  byExt=%v\n    e.g. %s\n", p.name, len(hits), byExt, strings.Join(ex, ", "))
	}
	all := Default()
	n := 0
	var tb int64
	for _, f := range files {
		if _, ok := all.SecretMatch(f.data); ok {
			n++
			tb += int64(len(f.data))
		}
	}
	tu, _ := New(nil, TunedSecretPatterns)
	m := 0
	for _, f := range files {
		if _, ok := tu.SecretMatch(f.data); ok {
			m++
		}
	}
	fmt.Printf("corpus %d files %d bytes; default excludes %d files (%d bytes); tuned excludes %d\n", len(files), gorootBytes, n, tb, m)
}
