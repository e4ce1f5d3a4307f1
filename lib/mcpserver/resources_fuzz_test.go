package mcpserver

import (
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
)

// FuzzResourceURI parses hostile resources/read URIs: a URI is refused
// with a coded field error or names a non-empty path; a path that
// rootfs.Clean accepts survives ResourceURI and back unchanged; and a URI
// never yields a path that cleans to outside the root without Clean
// refusing it.
func FuzzResourceURI(f *testing.F) {
	for _, s := range []string{
		"dir2mcp:///docs/a.md", "dir2mcp:///a%20b.txt", "dir2mcp:///%2e%2e/x", "dir2mcp:///..%2fx", "dir2mcp:////etc/passwd",
		"dir2mcp://host/a", "dir2mcp:///a?b", "dir2mcp:///a#b", "dir2mcp:///", "dir2mcp:", "DIR2MCP:///a", "file:///etc/passwd",
		"dir2mcp:///a%00b", "dir2mcp:///a\\..\\..\\x", "dir2mcp:///docs.zip!/a.txt", "dir2mcp:///%", "dir2mcp:///%zz",
		"dir2mcp:///é/ü.txt", "dir2mcp:///a%2Fb", "docs/a.md", "a b/c%d.txt", "x/%2e%2e/y", "100%.txt",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rel, err := relFromURI(s)
		if err != nil {
			if c := errcode.Of(err); c != errcode.InvalidField && c != errcode.MissingField {
				t.Fatalf("relFromURI(%q): %s error %v", s, c, err)
			}
		} else {
			if rel == "" {
				t.Fatalf("relFromURI(%q) = empty path", s)
			}
			if c, err := rootfs.Clean(rel); err == nil && (c == ".." || strings.HasPrefix(c, "../") || strings.HasPrefix(c, "/")) {
				t.Fatalf("relFromURI(%q) = %q, cleaned to %q outside the root", s, rel, c)
			}
		}
		// s as a path: a clean path survives the URI round trip.
		c, err := rootfs.Clean(s)
		if err != nil || strings.Contains(s, "%") || c != s {
			return
		}
		back, err := relFromURI(ResourceURI(c))
		if err != nil || back != c {
			t.Fatalf("relFromURI(ResourceURI(%q)) = %q, %v (URI %s)", c, back, err, ResourceURI(c))
		}
	})
}
