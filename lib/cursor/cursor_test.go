package cursor

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

type args struct {
	Pattern string `json:"pattern"`
	Glob    string `json:"glob"`
}

type pos struct {
	Path string `json:"path"`
	Line int    `json:"line"`
}

func key(b byte) []byte { return []byte(strings.Repeat(string(rune('a'+b)), 32)) }

// A cursor round-trips for its own tool and arguments, and every kind of
// misuse is refused on the cursor field with a message naming the check.
func TestCursorBindsToolArgsAndKey(t *testing.T) {
	s := New(key(0))
	a := args{Pattern: "func main", Glob: "**/*.go"}
	c, err := s.Issue("dir2mcp.grep", a, pos{"src/a.go", 12})
	if err != nil {
		t.Fatal(err)
	}
	var p pos
	if err := s.Open("dir2mcp.grep", a, c, &p); err != nil || p != (pos{"src/a.go", 12}) {
		t.Fatalf("round trip: %+v %v", p, err)
	}
	flip := func(c string, i int) string {
		raw, _ := base64.RawURLEncoding.DecodeString(c)
		raw[i] ^= 1
		return base64.RawURLEncoding.EncodeToString(raw)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(c)
	for name, tc := range map[string]struct {
		tool string
		args any
		c    string
		want string
	}{
		"payload byte flipped":   {"dir2mcp.grep", a, flip(c, 10), "signature"},
		"tag byte flipped":       {"dir2mcp.grep", a, flip(c, len(raw)-1), "signature"},
		"truncated":              {"dir2mcp.grep", a, c[:len(c)-4], "cursor"},
		"other key":              {"dir2mcp.grep", a, mustIssue(t, New(key(1)), "dir2mcp.grep", a), "signature"},
		"other tool":             {"dir2mcp.find", a, c, "issued by dir2mcp.grep"},
		"other arguments":        {"dir2mcp.grep", args{Pattern: "func main", Glob: "*.md"}, c, "other arguments"},
		"not base64":             {"dir2mcp.grep", a, "%%%", "not a dir2mcp cursor"},
		"empty":                  {"dir2mcp.grep", a, "", "not a dir2mcp cursor"},
		"huge":                   {"dir2mcp.grep", a, strings.Repeat("A", MaxLen+1), "at most"},
		"last character changed": {"dir2mcp.grep", a, lastCharPlusOne(c), "cursor"},
	} {
		err := s.Open(tc.tool, tc.args, tc.c, &p)
		e := errcode.As(err)
		if err == nil || e.Code != errcode.InvalidField || e.Field != "cursor" || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: got %v, want INVALID_FIELD on cursor mentioning %q", name, err, tc.want)
		}
	}
}

func mustIssue(t *testing.T, s *Signer, tool string, a any) string {
	t.Helper()
	c, err := s.Issue(tool, a, pos{"x", 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// lastCharPlusOne flips the low bit of the last base64 character: data,
// or unused bits that a lax decoder would ignore.
func lastCharPlusOne(c string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alphabet, c[len(c)-1])
	return c[:len(c)-1] + string(alphabet[i^1])
}
