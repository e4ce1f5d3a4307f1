package chunk

import (
	"crypto/sha256"
	"encoding/hex"
)

// TextHash returns "sha256:" and the hex SHA-256 of s, the chunks.text_hash
// that decides whether a chunk must be re-embedded.
func TextHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}
