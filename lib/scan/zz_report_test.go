package scan

import (
	"fmt"
	"sort"
	"testing"
)

func TestZZGoroot(t *testing.T) {
	src := "/usr/local/go/src"
	r := walk(t, Options{Root: src, Gitignore: true, SizeCaps: func(string) int64 { return 20 << 20 }})
	types := map[string]int{}
	codes := map[string]int{}
	langs := map[string]int{}
	ex := map[string][]string{}
	for _, d := range r.docs {
		types[d.DocType]++
		langs[d.Lang]++
		if d.Code != "" {
			codes[d.Code]++
			if len(ex[d.Code+d.Reason]) < 1 {
				ex[d.Code+d.Reason] = append(ex[d.Code+d.Reason], d.RelPath)
			}
		}
	}
	fmt.Printf("stats %+v\ntypes %v\ncodes %v\nlangs %v\n", r.stats, types, codes, langs)
	var ks []string
	for k := range ex {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		if len(k) < 60 || k[:14] != "SECRET_EXCLUDE" {
			fmt.Println(k, ex[k])
		}
	}
	fmt.Println("warns", len(r.warns), r.warns[:min(5, len(r.warns))])
}
