package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"path"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/scan"
)

// defaultRange is the length of an exact read that gives only offset.
const defaultRange = 64 << 10

// Encodings of an exact read's content.
const (
	encText   = "utf-8"
	encBase64 = "base64"
)

// byteRange describes an exact read in open_file's result.
type byteRange struct {
	Offset    int64  `json:"offset"`
	Length    int    `json:"length"`
	SizeBytes int64  `json:"size_bytes"`
	Encoding  string `json:"encoding"`
	EOF       bool   `json:"eof"`
	// NextOffset continues the read when EOF is false.
	NextOffset *int64 `json:"next_offset,omitempty"`
	// Redactions counts the credentials masked in the bytes ('*' for each
	// byte); the controls add those the text shows as the replacement.
	Redactions int `json:"redactions,omitempty"`
}

// openBytes returns length bytes of t from offset, exactly: as text when
// they are valid UTF-8 without NUL bytes, else base64. Credentials are
// masked byte for byte ('*') before the range is cut (corpus.ReadRange),
// so offsets hold and reads that together cover a key show none of it.
func (s *Server) openBytes(ctx context.Context, t corpus.Target, offset, length int64) (toolOut, error) {
	rg, err := s.access.ReadRange(ctx, &t, offset, length)
	if err != nil {
		return toolOut{}, err
	}
	data, size := rg.Data, rg.Size
	docType := t.DocType
	if docType == "" {
		docType, _ = scan.Classify(path.Base(t.Rel), data)
	}
	br := &byteRange{Offset: offset, Length: len(data), SizeBytes: size, Encoding: encText, Redactions: rg.Masked}
	content := string(data)
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		br.Encoding, content = encBase64, base64.StdEncoding.EncodeToString(data)
	}
	end := offset + int64(len(data))
	br.EOF = end >= size
	header := fmt.Sprintf("%s bytes %d-%d of %d (%s)", t.Rel, offset, end, size, br.Encoding)
	if !br.EOF {
		br.NextOffset = &end
		header += fmt.Sprintf("; continue with offset=%d", end)
	}
	out := openResult{RelPath: t.Rel, DocType: docType, Content: content, byteRange: br}
	return toolOut{out: out, summary: header + "\n" + content, files: []string{t.Rel}}, nil
}
