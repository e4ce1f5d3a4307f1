package extract

import (
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

func TestMarkdownTitle(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"atx", "intro\n\n# The  Title #\n\n# Later\n", "The Title"},
		{"yaml front matter", "---\nlayout: post\ntitle: \"Front Title\"\n---\n# Heading\n", "Front Title"},
		{"yaml single quotes", "---\ntitle: 'Q'\n...\n", "Q"},
		{"toml front matter", "+++\ntitle = \"Toml Title\"\n+++\n# H\n", "Toml Title"},
		{"front matter without title", "---\nlayout: x\n---\n# After FM\n", "After FM"},
		{"setext", "Setext Title\n============\n\ntext\n", "Setext Title"},
		{"fenced hash", "```sh\n# not a title\n```\n# Real\n", "Real"},
		{"tilde fence", "~~~~\n# no\n~~~\n# still no\n~~~~\n# Yes\n", "Yes"},
		{"h2 only", "## Sub\ntext\n", ""},
		{"no space", "#hashtag\n", ""},
		{"indented code", "    # code\n", ""},
		{"unclosed front matter", "---\ntitle: x\n# H1\n", "H1"},
		{"none", "just text\n", ""},
	}
	for _, c := range cases {
		r := mustRawText(t, []byte(c.in), record.DocMarkdown)
		if r.Title != c.want {
			t.Errorf("%s: title = %q, want %q", c.name, r.Title, c.want)
		}
		if r.Text != c.in || r.Map != nil {
			t.Errorf("%s: markdown text must be kept as is", c.name)
		}
	}
}

func TestTitleCapped(t *testing.T) {
	long := "# " + strings.Repeat("é", 400) + "\n"
	r := mustRawText(t, []byte(long), record.DocMarkdown)
	if len(r.Title) > maxTitleBytes || !strings.HasPrefix(r.Title, "éé") {
		t.Errorf("title is %d bytes", len(r.Title))
	}
}

func TestNoTitleForCode(t *testing.T) {
	if r := mustRawText(t, []byte("# Title-like comment\n"), record.DocCode); r.Title != "" {
		t.Errorf("code got title %q", r.Title)
	}
}
