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

func TestUnmarkHTMLSnippet(t *testing.T) {
	src := `<h3><a class="toc-backref" href="#id17">What is it?</a><a class="headerlink" href="#x">¶</a></h3>
<ul><li><p>first <a href="https://a.example/x">link</a></p></li>
<li><p>second</p></li></ul>
<blockquote><p>quoted</p></blockquote><table><tr><td>a</td><td>b</td></tr></table><pre>code</pre>`
	snippet := "### What is it?¶\n\n- first [link](https://a.example/x)\n\n  - second\n\n> quoted\n\na | b\n\n```\ncode\n```"
	if SnippetInside(snippet, src, true) {
		t.Error("the literal rule must not see through the extractor's markdown")
	}
	if !SnippetInside(UnmarkHTMLSnippet(snippet), src, true) {
		t.Errorf("unmarked %q not found", UnmarkHTMLSnippet(snippet))
	}
	if got := UnmarkHTMLSnippet("```\n>>> x = [1](2)\n```\n> q"); got != ">>> x = [1](2)\nq" {
		t.Errorf("fenced code must stay: %q", got)
	}
	if got := UnmarkHTMLSnippet("see [the docs](https://a.example/lo…"); got != "see the docs" {
		t.Errorf("clipped link: %q", got)
	}
	// Unmarking does not make wrong text right.
	if SnippetInside(UnmarkHTMLSnippet("### Other heading"), src, true) {
		t.Error("wrong snippet accepted")
	}
}
