// Package cursor makes the opaque continuation tokens of paged tool
// results. A cursor carries a position (where the next page starts) signed
// with HMAC-SHA256 under a key kept in the state directory
// (state.EnsureCursorKey), bound to the tool and to a digest of the call's
// normalized arguments: it cannot be forged or altered, and it is refused
// when presented to another tool or with other arguments. Every refusal is
// INVALID_FIELD on "cursor" with a message saying which check failed.
//
// Positions are keysets (the sort key of the last entry returned), so a
// cursor stays meaningful while the index changes: the next page starts
// after that entry, whatever was added or removed before it.
package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// MaxLen bounds the length of a cursor string a client may present.
const MaxLen = 8192

// macBytes is the size of the truncated HMAC-SHA256 tag.
const macBytes = 16

// version is the payload format.
const version = 1

// Field is the argument name every refusal names.
const Field = "cursor"

// Signer issues and checks cursors under one key.
type Signer struct{ key []byte }

// New returns a Signer using key (at least 16 bytes).
func New(key []byte) *Signer {
	if len(key) < 16 {
		panic("cursor: key too short")
	}
	return &Signer{key: append([]byte(nil), key...)}
}

// payload is what a cursor carries, before its tag.
type payload struct {
	V    int             `json:"v"`
	Tool string          `json:"t"`
	Args string          `json:"a"` // hex digest of the bound arguments
	Pos  json.RawMessage `json:"p"`
}

// Issue returns a cursor for tool, valid only with arguments equal to args
// (compared by the digest of their JSON encoding), continuing at pos.
func (s *Signer) Issue(tool string, args, pos any) (string, error) {
	p, err := json.Marshal(pos)
	if err != nil {
		return "", err
	}
	d, err := digest(args)
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(payload{V: version, Tool: tool, Args: d, Pos: p})
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(append(body, s.tag(body)...)), nil
}

// Open checks c against tool and args and decodes its position into pos.
func (s *Signer) Open(tool string, args any, c string, pos any) error {
	if len(c) > MaxLen {
		return invalid("cursor is %d characters long; cursors are at most %d: pass next_cursor from a previous result unchanged", len(c), MaxLen)
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(c)
	if err != nil || len(raw) <= macBytes {
		return invalid("cursor is not a dir2mcp cursor (not the opaque next_cursor of a previous result)")
	}
	body, tag := raw[:len(raw)-macBytes], raw[len(raw)-macBytes:]
	if !hmac.Equal(tag, s.tag(body)) {
		return invalid("cursor signature does not verify: it was altered, or issued by another dir2mcp index; pass next_cursor unchanged or start again without cursor")
	}
	var p payload
	if err := json.Unmarshal(body, &p); err != nil || p.V != version {
		return invalid("cursor format is not supported by this dir2mcp; start again without cursor")
	}
	if p.Tool != tool {
		return invalid("cursor was issued by %s, not %s: a cursor continues the call that returned it", p.Tool, tool)
	}
	d, err := digest(args)
	if err != nil {
		return err
	}
	if p.Args != d {
		return invalid("cursor was issued for other arguments: repeat the call that returned it with the same arguments (only cursor and the page size may change), or start again without cursor")
	}
	if err := json.Unmarshal(p.Pos, pos); err != nil {
		return invalid("cursor position is unreadable; start again without cursor")
	}
	return nil
}

func (s *Signer) tag(body []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(body)
	return m.Sum(nil)[:macBytes]
}

// digest identifies args by the SHA-256 of their JSON encoding (struct
// fields in declaration order, map keys sorted).
func digest(args any) (string, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12]), nil
}

func invalid(format string, a ...any) error {
	return errcode.FieldError(errcode.InvalidField, Field, format, a...)
}
