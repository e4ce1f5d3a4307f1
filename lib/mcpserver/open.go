package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/archive"
	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

// maxOpenBytes bounds how much of a file open_file reads.
const maxOpenBytes = 32 << 20

type openResult struct {
	RelPath   string       `json:"rel_path"`
	DocType   string       `json:"doc_type"`
	Span      *record.Span `json:"span,omitempty"`
	Content   string       `json:"content"`
	Truncated bool         `json:"truncated"`
	// Stored: the file is not on this host; the content is the copy a
	// serve replica keeps (docs/scaling.md).
	Stored bool `json:"stored,omitempty"`
	*byteRange
}

var openFileParams = []param{
	str("rel_path", "file path relative to the root, as in search hits").need(),
	atLeast("start_line", "first line to return (1-based)", 1, maxLine),
	atLeast("end_line", "last line to return (inclusive)", 1, maxLine),
	atLeast("page", "PDF page to return (OCR text)", 1, maxLine),
	atLeast("start_ms", "transcript start time in milliseconds", 0, maxMs),
	atLeast("end_ms", "transcript end time in milliseconds", 0, maxMs),
	integer("max_chars", "cap on returned characters", 200, 50000).withDefault(20000),
	maxTokensParam,
	atLeast("offset", "exact read: first byte to return (0-based); returns bytes, not lines, for any file", 0, maxMs),
	integer("length", "exact read: bytes to return from offset", 1, corpus.MaxRange).withDefault(defaultRange),
}

func (s *Server) openFile(ctx context.Context, a *args) (toolOut, error) {
	rel := a.str("rel_path")
	startLine, hasStart := a.integer("start_line"), a.has("start_line")
	endLine, hasEnd := a.integer("end_line"), a.has("end_line")
	page, hasPage := a.integer("page"), a.has("page")
	startMs, hasStartMs := a.integer("start_ms"), a.has("start_ms")
	endMs, hasEndMs := a.integer("end_ms"), a.has("end_ms")
	maxChars := a.integer("max_chars")
	if a.has("max_tokens") {
		maxChars = min(maxChars, a.integer("max_tokens")*charsPerToken)
	}
	t, err := s.access.Open(ctx, rel)
	var data []byte
	stored := false
	if errcode.Of(err) == errcode.FileNotFound {
		// Not on this host: a serve replica answers from its stored copy.
		var st corpus.Target
		var serr error
		if st, data, stored, serr = s.access.OpenStored(ctx, rel); serr != nil {
			return toolOut{}, serr
		} else if stored {
			t, err = st, nil
		}
	}
	if err != nil {
		return toolOut{}, err
	}
	rel = t.Rel
	switch {
	case a.has("offset") || a.has("length"):
		for _, f := range []string{"start_line", "end_line", "page", "start_ms", "end_ms"} {
			if a.has(f) {
				return toolOut{}, errcode.FieldError(errcode.InvalidField, f, "%s cannot be combined with offset/length: an exact read returns bytes, not lines, pages or times", f)
			}
		}
		return s.openBytes(ctx, t, int64(a.integer("offset")), int64(a.integer("length")))
	case hasPage:
		return s.openPage(ctx, t, page, maxChars)
	case hasStartMs || hasEndMs:
		return s.openTime(ctx, t, startMs, endMs, hasEndMs, maxChars)
	}
	if !t.Known { // not indexed (yet): its bytes tell its type
		if data, _, err = s.access.Read(ctx, &t, maxOpenBytes); err != nil {
			return toolOut{}, err
		}
	}
	docType := t.DocType
	switch docType {
	case record.DocPDF, record.DocImage:
		if hasStart || hasEnd {
			return toolOut{}, errcode.FieldError(errcode.DocTypeUnsupported, "start_line",
				"%s is a %s: its text is cited by page; open it with page", rel, docType)
		}
		return s.openPage(ctx, t, 1, maxChars)
	case record.DocAudio:
		if hasStart || hasEnd {
			return toolOut{}, errcode.FieldError(errcode.DocTypeUnsupported, "start_line",
				"%s is audio: its transcript is cited by time; open it with start_ms/end_ms", rel)
		}
		return s.openTime(ctx, t, 0, 0, false, maxChars)
	case record.DocArchive:
		return toolOut{}, errcode.New(errcode.DocTypeUnsupported, "%s is an archive; open one of its members (rel_path %s%s<member>, see dir2mcp.list_files)", rel, rel, archive.Sep)
	case record.DocBinaryIgnored:
		return toolOut{}, errcode.New(errcode.DocTypeUnsupported, "%s is a binary file and has no text", rel)
	}
	if data == nil {
		if data, _, err = s.access.Read(ctx, &t, maxOpenBytes); err != nil {
			return toolOut{}, err
		}
	}
	if err := s.access.CheckSecret(rel, data); err != nil {
		return toolOut{}, err
	}
	txt, err := extract.SourceText(data, docType) // the lines citations count, even for HTML
	if err != nil {
		return toolOut{}, err
	}
	// Mask credentials over the whole file before cutting a line range: a
	// range inside a key block holds no BEGIN line to recognise it by.
	// Masking keeps line breaks, so line numbers stay those of the file.
	txt, _ = s.redact.Mask(txt)
	lines := strings.Split(txt, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	total := len(lines)
	lo, hi := 1, total
	if hasStart {
		lo = startLine
	}
	if hasEnd {
		hi = endLine
	}
	if hasStart || hasEnd {
		if lo > total {
			return toolOut{}, errcode.FieldError(errcode.InvalidRange, "start_line", "start_line %d is past the end of %s (%d lines)", lo, rel, total)
		}
		if hasEnd && hi < lo {
			return toolOut{}, errcode.FieldError(errcode.InvalidRange, "end_line", "end_line %d is before start_line %d", hi, lo)
		}
		hi = min(hi, total)
	}
	out := openResult{RelPath: rel, DocType: docType, Stored: stored}
	var b strings.Builder
	last := lo - 1
	for i := lo; i <= hi; i++ {
		ln := lines[i-1]
		if b.Len()+len(ln)+1 > maxChars {
			out.Truncated = true
			if b.Len() == 0 { // a single overlong line: cut it
				cut := maxChars
				for cut > 0 && !utf8.RuneStart(ln[cut]) {
					cut--
				}
				b.WriteString(ln[:cut])
				last = i
			}
			break
		}
		b.WriteString(ln)
		b.WriteByte('\n')
		last = i
	}
	if total == 0 {
		lo, last = 0, 0
	}
	if last >= lo && total > 0 {
		sp := record.Lines(lo, last)
		out.Span = &sp
	}
	out.Content = b.String()
	header := fmt.Sprintf("%s (%s, %d lines)", rel, docType, total)
	if out.Span != nil {
		header = retrieve.Cite(rel, *out.Span)
	}
	if out.Truncated {
		header += fmt.Sprintf(" — truncated at %d characters (max_chars/max_tokens); continue with start_line=%d", maxChars, last+1)
	}
	if stored {
		header += " — the file is not on this host; served from the replica's stored copy of the indexed version"
	}
	return toolOut{out: out, summary: header + "\n" + out.Content, files: []string{rel}}, nil
}
