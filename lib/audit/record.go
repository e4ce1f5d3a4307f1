// Package audit is the audit log of tool calls: one JSON line per call in
// the state directory (audit.jsonl), written asynchronously, rotated by
// size, shared safely by several processes, and read back with filters
// (`dir2mcp audit`). A record names who called what and how it went — time,
// session, client, token label, tool, a digest of the arguments and the
// arguments that are safe to keep, result size, duration, error code — and
// never a token, a key or file content.
package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Record is one audit line.
type Record struct {
	Time time.Time `json:"time"`
	// Session is the MCP session id (HTTP), or the server process's stdio
	// session id.
	Session   string `json:"session,omitempty"`
	Transport string `json:"transport"` // http | stdio
	// Client and ClientVersion come from the client's initialize request.
	Client        string `json:"client,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
	// Token is the label of the credential used ("owner" for the server's
	// own token, a `dir2mcp token add` name), never the token; "" without
	// auth (stdio, --auth none).
	Token string `json:"token,omitempty"`
	// Tool is the tool called, or the method for a non-tool request that
	// reads files (resources/read).
	Tool string `json:"tool"`
	// ArgsSHA256 is the SHA-256 of the arguments in canonical JSON (keys
	// sorted), so identical calls can be matched without keeping them.
	ArgsSHA256 string `json:"args_sha256"`
	// Args are the arguments worth keeping: strings (with credentials
	// masked, at most MaxArgChars), numbers, booleans and string lists;
	// objects are left out.
	Args        map[string]any `json:"args,omitempty"`
	ResultBytes int            `json:"result_bytes"`
	DurationMs  float64        `json:"duration_ms"`
	// Error is the error code of a failed call ("" on success).
	Error string `json:"error,omitempty"`
	// Redactions counts the masked spans the result showed.
	Redactions int `json:"redactions,omitempty"`
}

// MaxArgChars bounds a string argument kept in a record.
const MaxArgChars = 256

// Digest is the hex SHA-256 of raw JSON arguments in canonical form (keys
// sorted, insignificant space removed); raw that is not JSON is hashed as
// is.
func Digest(raw json.RawMessage) string {
	canon := []byte(raw)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// KeptArgs returns the arguments of raw worth keeping, each string passed
// through mask (credentials) and cut to MaxArgChars.
func KeptArgs(raw json.RawMessage, mask func(string) string) map[string]any {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return nil
	}
	out := map[string]any{}
	for k, v := range m {
		var s string
		var n json.Number
		var b bool
		var list []string
		switch {
		case json.Unmarshal(v, &s) == nil:
			out[k] = cut(mask(s))
		case json.Unmarshal(v, &b) == nil:
			out[k] = b
		case json.Unmarshal(v, &n) == nil:
			out[k] = n
		case json.Unmarshal(v, &list) == nil:
			for i := range list {
				list[i] = cut(mask(list[i]))
			}
			out[k] = list
		}
	}
	return out
}

func cut(s string) string {
	if len(s) <= MaxArgChars {
		return s
	}
	i := MaxArgChars
	for i > 0 && s[i]&0xC0 == 0x80 { // a UTF-8 continuation byte
		i--
	}
	return s[:i] + "…"
}
