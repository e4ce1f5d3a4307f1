package archive

import (
	"path"
	"strings"
	"testing"
)

// FuzzCleanName checks that an accepted member name can never escape the
// archive or be confused with a nested member path.
func FuzzCleanName(f *testing.F) {
	for _, s := range []string{"a/b.txt", "../x", `..\..\x`, "/abs", "C:/x", "a/./b/../c", "a!/b", "é/ü.txt"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		c, err := CleanName(name)
		if err != nil {
			return
		}
		if c == "" || c == "." || strings.HasPrefix(c, "/") || strings.Contains(c, "\\") || strings.Contains(c, Sep) || path.Clean(c) != c {
			t.Fatalf("CleanName(%q) = %q", name, c)
		}
		for _, el := range strings.Split(c, "/") {
			if el == ".." {
				t.Fatalf("CleanName(%q) = %q keeps ..", name, c)
			}
		}
	})
}
