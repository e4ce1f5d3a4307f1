package corpora

import (
	"strings"
	"testing"
)

const pySample = `"""Module doc."""
import os  # a comment


class Matcher(object):
    """Find the longest matching block.

    More text.
    """

    x = 1

    def ratio(self, a,
              b):
        """Return a measure of the sequences' similarity."""
        s = '''not a
doc'''
        return 1

    @property
    def size(self): return 2


def free(a):
    # comment
    return a
`

func TestPyDefs(t *testing.T) {
	defs := pyDefs(pySample)
	want := []pyDef{
		{name: "Matcher", isClass: true, start: 5, end: 12, doc: "Find the longest matching block.\n\n    More text.\n    "},
		{name: "ratio", class: "Matcher", start: 13, end: 18, doc: "Return a measure of the sequences' similarity."},
		{name: "size", class: "Matcher", start: 21, end: 21},
		{name: "free", start: 24, end: 26},
	}
	if len(defs) != len(want) {
		t.Fatalf("got %+v", defs)
	}
	for i := range want {
		if defs[i] != want[i] {
			t.Errorf("def %d = %+v, want %+v", i, defs[i], want[i])
		}
	}
	s := stripPython(pySample)
	if strings.Count(s, "\n") != strings.Count(pySample, "\n") {
		t.Fatal("line count changed")
	}
	for _, gone := range []string{"Module doc", "a comment", "longest", "similarity", "# comment"} {
		if strings.Contains(s, gone) {
			t.Errorf("%q survived stripping:\n%s", gone, s)
		}
	}
	if !strings.Contains(s, "not a\ndoc") || !strings.Contains(s, "return a") {
		t.Errorf("code lost:\n%s", s)
	}
}
