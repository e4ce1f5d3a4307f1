package eval

import "testing"

func TestSnippetInside(t *testing.T) {
	cases := []struct {
		snippet, content string
		html, want       bool
	}{
		{"func a() {\n\treturn 1\n}", "// doc\nfunc a() {\n    return 1\n}\n", false, true},
		{"func a() {\n\treturn 2\n}", "func a() {\n    return 1\n}\n", false, false},
		{"a long line cut he…", "x\na long line cut here and more\n", false, true},
		{"", "anything", false, false},
		{"Fish & chips are <good>", "<p>Fish &amp; chips are &lt;good&gt;</p>", true, true},
		{"Title body", "<h1 class=\"t\">Title</h1>\n<script>var x = '<b>';</script><p>body</p>", true, true},
		{"var x", "<style>p{}</style><script>var x = 1</script><p>body</p>", true, false},
		{"half a tag", "half a tag <a href=\"x\"\n", true, true},
		{"gone", "<!-- gone --><p>kept</p>", true, false},
		// A letter whose lower case is longer (İ) before a script must not shift offsets.
		{"İx after", "<p>İx</p><SCRIPT>var y</SCRIPT><p>after</p>", true, true},
	}
	for _, c := range cases {
		if got := SnippetInside(c.snippet, c.content, c.html); got != c.want {
			t.Errorf("SnippetInside(%q, %q, %v) = %v", c.snippet, c.content, c.html, got)
		}
	}
}
