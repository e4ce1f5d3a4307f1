package exclude

import (
	"fmt"
	"regexp"
	"testing"
)

func TestZZKinds(t *testing.T) {
	files := gorootCorpus(t)
	re := regexp.MustCompile(`[0-9a-zA-Z/+=]{40,}`)
	hex := regexp.MustCompile(`^[0-9a-fA-F]+$`)
	letters := regexp.MustCompile(`^[a-zA-Z]+$`)
	alnum := regexp.MustCompile(`^[a-zA-Z0-9]+$`)
	kinds := map[string]int{}
	ex := map[string][]string{}
	for _, f := range files {
		m := re.Find(f.data)
		if m == nil {
			continue
		}
		k := "base64-like (+ / =)"
		switch {
		case hex.Match(m):
			k = "hex digest/test vector"
		case letters.Match(m):
			k = "long identifier (letters only)"
		case alnum.Match(m):
			k = "alphanumeric (identifier with digits / base62)"
		}
		kinds[k]++
		if len(ex[k]) < 4 {
			ex[k] = append(ex[k], f.rel)
		}
	}
	for k, n := range kinds {
		fmt.Printf("%-48s %4d  e.g. %v\n", k, n, ex[k])
	}
}
