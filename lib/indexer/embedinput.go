package indexer

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// EmbedInput is what the embed stage sends to the embedder for a chunk
// record (its context, then its text, with its path and language).
func EmbedInput(c record.Chunk) embed.Input {
	return embed.Input{Text: embedText(c.Context, c.Text), Kind: c.IndexKind, Path: c.RelPath, Lang: c.Lang}
}

// VectorKey identifies an embedder input: "sha256:<hex>" of its kind, path,
// language and text. Two chunks with the same key get the same vector.
func VectorKey(in embed.Input) string {
	h := sha256.New()
	for _, s := range []string{in.Kind, in.Path, in.Lang, in.Text} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
