package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

// repContent returns the stored text of t's representation of repType, or
// DOC_TYPE_UNSUPPORTED naming why there is none.
func (s *Server) repContent(ctx context.Context, t corpus.Target, repType, field, what string) (string, error) {
	if !t.Known {
		return "", errcode.FieldError(errcode.DocTypeUnsupported, field, "%s is not in the index (yet); %s are available once it is indexed", t.Rel, what)
	}
	content, _, ok, err := s.Store.RepContent(ctx, t.Doc.DocID, repType)
	if err != nil {
		return "", err
	}
	if !ok {
		why := ""
		if t.Doc.Status != record.StatusOK && t.Doc.Error != "" {
			why = " (" + t.Doc.Status + ": " + t.Doc.Error + ")"
		}
		return "", errcode.FieldError(errcode.DocTypeUnsupported, field, "%s has no %s in the index (doc_type %s)%s", t.Rel, what, t.Doc.DocType, why)
	}
	return content, nil
}

// openPage returns one page of a PDF's or image's text (SPEC §15.4).
func (s *Server) openPage(ctx context.Context, t corpus.Target, page, maxChars int) (toolOut, error) {
	content, err := s.repContent(ctx, t, record.RepOCRMarkdown, "page", "OCR pages")
	if err != nil {
		return toolOut{}, err
	}
	pages := strings.Split(content, indexer.PageSep)
	if page > len(pages) {
		return toolOut{}, errcode.FieldError(errcode.InvalidRange, "page", "page %d is past the end of %s (%d pages)", page, t.Rel, len(pages))
	}
	text := pages[page-1]
	if err := s.access.CheckSecret(t.Rel, []byte(text)); err != nil {
		return toolOut{}, err
	}
	text, truncated := clipText(text, maxChars)
	sp := record.Page(page)
	out := openResult{RelPath: t.Rel, DocType: t.Doc.DocType, Span: &sp, Content: text, Truncated: truncated}
	header := retrieve.Cite(t.Rel, sp) + fmt.Sprintf(" (page %d of %d)", page, len(pages))
	if truncated {
		header += fmt.Sprintf(" — truncated at %d characters (max_chars/max_tokens)", maxChars)
	}
	return toolOut{out: out, summary: header + "\n" + text, files: []string{t.Rel}}, nil
}

// openTime returns the transcript segments of an audio file that overlap
// [startMs, endMs] (to the end without endMs), one "[mm:ss-mm:ss] text"
// line each.
func (s *Server) openTime(ctx context.Context, t corpus.Target, startMs, endMs int, hasEnd bool, maxChars int) (toolOut, error) {
	if hasEnd && endMs < startMs {
		return toolOut{}, errcode.FieldError(errcode.InvalidRange, "end_ms", "end_ms %d is before start_ms %d", endMs, startMs)
	}
	content, err := s.repContent(ctx, t, record.RepTranscript, "start_ms", "transcript")
	if err != nil {
		return toolOut{}, err
	}
	var tr transcript.Transcript
	if err := json.Unmarshal([]byte(content), &tr); err != nil {
		return toolOut{}, errcode.Wrap(errcode.StoreCorrupt, err, "%s: stored transcript is unreadable: %v", t.Rel, err)
	}
	if err := s.access.CheckSecret(t.Rel, []byte(tr.Text)); err != nil {
		return toolOut{}, err
	}
	out := openResult{RelPath: t.Rel, DocType: t.Doc.DocType}
	if !tr.Timestamps {
		if hasEnd || startMs > 0 {
			return toolOut{}, errcode.FieldError(errcode.DocTypeUnsupported, "start_ms", "the transcript of %s has no timestamps; open it without start_ms/end_ms", t.Rel)
		}
		out.Content, out.Truncated = clipText(tr.Text, maxChars)
		return toolOut{out: out, summary: t.Rel + " (transcript without timestamps)\n" + out.Content, files: []string{t.Rel}}, nil
	}
	end := int64(0)
	if hasEnd {
		end = int64(endMs)
	}
	segs := tr.Between(int64(startMs), end)
	if len(segs) == 0 {
		return toolOut{}, errcode.FieldError(errcode.InvalidRange, "start_ms", "no speech in %s between %d ms and %s (the recording lasts %d ms)", t.Rel, startMs, endLabel(hasEnd, endMs), tr.DurationMs)
	}
	var b strings.Builder
	last := -1
	for i, g := range segs {
		line := fmt.Sprintf("[%s-%s] %s\n", clockOf(g.StartMs), clockOf(g.EndMs), g.Text)
		if b.Len()+len(line) > maxChars && i > 0 {
			out.Truncated = true
			break
		}
		b.WriteString(line)
		last = i
	}
	sp := record.Time(segs[0].StartMs, segs[last].EndMs)
	out.Span, out.Content = &sp, b.String()
	header := retrieve.Cite(t.Rel, sp)
	if out.Truncated {
		header += fmt.Sprintf(" — truncated at %d characters (max_chars/max_tokens); continue with start_ms=%d", maxChars, segs[last].EndMs)
	}
	return toolOut{out: out, summary: header + "\n" + out.Content, files: []string{t.Rel}}, nil
}

func endLabel(hasEnd bool, endMs int) string {
	if !hasEnd {
		return "the end"
	}
	return fmt.Sprintf("%d ms", endMs)
}

// clockOf formats milliseconds as mm:ss (h:mm:ss past an hour), as
// citations do.
func clockOf(ms int64) string {
	c := retrieve.Cite("", record.Time(ms, ms)) // "[@t=mm:ss-mm:ss]"
	c = strings.TrimPrefix(c, "[@t=")
	c, _, _ = strings.Cut(c, "-")
	return c
}

// clipText cuts s to at most max bytes on a rune boundary.
func clipText(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}
