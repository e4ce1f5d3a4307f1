package answer

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// citeForms matches the three citation forms of SPEC §9.3 inside brackets:
// [path:L10-L20], [path#p=3] and [path@t=01:05-01:35] (times as mm:ss,
// h:mm:ss or milliseconds).
var citeForms = regexp.MustCompile(`^(.+?)(?::L(\d+)-L(\d+)|#p=(\d+)|@t=([\d:]+)-([\d:]+))$`)

// bracketed finds bracketed spans on one line: citation candidates.
// Compiled on first use: the bounded repetition makes a large program
// (~2 ms), which every command would otherwise pay at start.
var bracketed = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[[^\[\]\n]{1,400}\]`) })

// parseCite reads a citation ("[a.go:L3-L9]", brackets included).
func parseCite(s string) (path string, sp record.Span, ok bool) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	m := citeForms.FindStringSubmatch(s)
	if m == nil {
		return "", record.Span{}, false
	}
	path = m[1]
	switch {
	case m[2] != "":
		a, _ := strconv.Atoi(m[2])
		b, _ := strconv.Atoi(m[3])
		return path, record.Lines(a, b), a >= 1 && b >= a
	case m[4] != "":
		p, _ := strconv.Atoi(m[4])
		return path, record.Page(p), p >= 1
	}
	a, okA := parseClock(m[5])
	b, okB := parseClock(m[6])
	return path, record.Time(a, b), okA && okB && b >= a
}

// parseClock reads mm:ss or h:mm:ss as milliseconds, or a bare number as
// milliseconds.
func parseClock(s string) (int64, bool) {
	parts := strings.Split(s, ":")
	if len(parts) == 1 {
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	if len(parts) > 3 {
		return 0, false
	}
	var sec int64
	for _, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		sec = sec*60 + n
	}
	return sec * 1000, true
}

// within reports whether span a lies inside span b (same kind). Time spans
// are compared at second precision, as citations render them.
func within(a, b record.Span) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case record.SpanLines:
		return a.StartLine >= b.StartLine && a.EndLine <= b.EndLine
	case record.SpanPage:
		return a.Page == b.Page
	case record.SpanTime:
		return a.StartMs >= b.StartMs/1000*1000 && a.EndMs <= (b.EndMs+999)/1000*1000
	}
	return false
}

// StripCitations removes the SPEC §9.3 citations from text (for speech),
// leaving other bracketed text.
func StripCitations(text string) string {
	out := bracketed().ReplaceAllStringFunc(text, func(m string) string {
		if _, _, ok := parseCite(m); ok {
			return ""
		}
		return m
	})
	out = spaceBeforePunct.ReplaceAllString(out, "$1")
	return strings.TrimSpace(spaceRuns.ReplaceAllString(out, "$1 "))
}
