// Package rpcframe checks inbound JSON-RPC 2.0 messages before the MCP
// SDK decodes them. The SDK ends a stdio connection on the first message it
// cannot decode and turns numeric ids through float64 into int64, so a
// malformed line, a batch or an id such as 2^63 would end the session or
// come back changed. Check answers such a message with its own JSON-RPC
// error (-32700 parse error, -32600 invalid request); Filter applies it to
// a newline-delimited stream (the stdio transport), passing valid messages
// through unchanged.
package rpcframe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxSafeID is the largest integer id a message may carry: every integer up
// to it survives the SDK's float64 decoding exactly (2^53 - 1).
const MaxSafeID = 1<<53 - 1

// Refusal is the error answer to a message that does not reach the SDK.
type Refusal struct {
	Code    int64
	Message string
	// ID is the message's id as sent (nil: null, when none could be read).
	ID json.RawMessage
}

func (r *Refusal) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", r.Code, r.Message) }

// Response is the JSON-RPC error response carrying r, without a newline.
func (r *Refusal) Response() []byte {
	id := r.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: r.Code, Message: r.Message}})
	return b
}

func parseError(format string, args ...any) *Refusal {
	return &Refusal{Code: jsonrpc.CodeParseError, Message: "parse error: " + fmt.Sprintf(format, args...)}
}

func invalid(id json.RawMessage, format string, args ...any) *Refusal {
	return &Refusal{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + fmt.Sprintf(format, args...), ID: id}
}

// Check validates one message (surrounding white space allowed): UTF-8,
// exactly one JSON value, an object (batches are refused), "jsonrpc":"2.0",
// an id that is a string or an integer within ±MaxSafeID (never null), a
// string method with object or array params, or else a response with
// exactly one of result and error; finally the SDK's own decoder must accept
// it. It returns nil for a message the SDK may read.
func Check(msg []byte) *Refusal {
	msg = bytes.TrimSpace(msg)
	if !utf8.Valid(msg) {
		return parseError("the message is not valid UTF-8")
	}
	if !json.Valid(msg) {
		var v json.RawMessage
		err := json.Unmarshal(msg, &v)
		if err == nil {
			err = fmt.Errorf("not one JSON value")
		}
		return parseError("%v", err)
	}
	switch msg[0] {
	case '{':
	case '[':
		return invalid(nil, "JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per line")
	default:
		return invalid(nil, "a JSON-RPC message is a JSON object, got %.40s", msg)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return invalid(nil, "%v", err)
	}
	id, r := checkID(m)
	if r != nil {
		return r
	}
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return invalid(id, `"jsonrpc" must be "2.0"`)
	}
	if method, ok := m["method"]; ok {
		var s string
		if json.Unmarshal(method, &s) != nil {
			return invalid(id, `"method" must be a string`)
		}
		if p, ok := m["params"]; ok && p[0] != '{' && p[0] != '[' && string(p) != "null" {
			return invalid(id, `"params" must be an object or an array`)
		}
	} else if r := checkResponse(m, id); r != nil {
		return r
	}
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		return invalid(id, "%v", err)
	}
	return nil
}

// checkID returns the id of message m to answer with, or the refusal of an
// id that is not a string or an integer within ±MaxSafeID. A null id is
// refused (the SDK would take the request for a notification and never
// answer) except on a notifications/ method, which is one.
func checkID(m map[string]json.RawMessage) (json.RawMessage, *Refusal) {
	raw, present := m["id"]
	if !present {
		return nil, nil
	}
	if string(raw) == "null" {
		var method string
		if json.Unmarshal(m["method"], &method) == nil && strings.HasPrefix(method, "notifications/") {
			return nil, nil
		}
	}
	switch c := raw[0]; {
	case c == '"':
		return raw, nil
	case c == '-' || c >= '0' && c <= '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > MaxSafeID || n < -MaxSafeID || strconv.FormatInt(n, 10) != string(raw) {
			return nil, invalid(raw, "id %s is not an integer between -%d and %d (it would not come back exactly); use a string id or a smaller integer", raw, int64(MaxSafeID), int64(MaxSafeID))
		}
		return raw, nil
	case string(raw) == "null":
		return nil, invalid(nil, "id must not be null (MCP); omit it for a notification")
	}
	return nil, invalid(nil, "id must be a string or an integer, got %.40s", raw)
}

// checkResponse checks a message without a method: a response, which has an
// id and exactly one of result and an error object {code, message}.
func checkResponse(m map[string]json.RawMessage, id json.RawMessage) *Refusal {
	if id == nil {
		return invalid(nil, `a message without "method" is a response and needs an id`)
	}
	result, hasResult := m["result"]
	errObj, hasError := m["error"]
	switch {
	case hasResult == hasError:
		return invalid(id, `a response carries exactly one of "result" and "error"`)
	case hasResult && len(result) == 0:
		return invalid(id, `empty "result"`)
	case hasError:
		var e struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		}
		if json.Unmarshal(errObj, &e) != nil || errObj[0] != '{' || e.Code == nil || e.Message == nil {
			return invalid(id, `"error" must be an object with an integer "code" and a string "message"`)
		}
	}
	return nil
}

// CheckIDs applies only the id rule of Check to a message or to each
// message of a batch (an HTTP body, whose other faults the SDK answers
// itself). It returns nil when every id may reach the SDK, and for a body
// that is not JSON.
func CheckIDs(body []byte) *Refusal {
	var batch []map[string]json.RawMessage
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		if json.Unmarshal(body, &batch) != nil {
			return nil
		}
	} else {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil {
			return nil
		}
		batch = append(batch, m)
	}
	for _, m := range batch {
		if _, r := checkID(m); r != nil {
			return r
		}
	}
	return nil
}

// CheckBatch validates a JSON-RPC batch for a session whose protocol
// version still has batches (MCP 2025-03-26): a non-empty array of
// messages that each pass Check, with no request id twice.
func CheckBatch(msg []byte) *Refusal {
	var batch []json.RawMessage
	if err := json.Unmarshal(msg, &batch); err != nil {
		return Check(msg)
	}
	if len(batch) == 0 {
		return invalid(nil, "empty batch")
	}
	seen := map[string]bool{}
	for i, m := range batch {
		if r := Check(m); r != nil {
			return invalid(nil, "batch message %d: %s", i+1, r.Message)
		}
		var e struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		_ = json.Unmarshal(m, &e)
		if e.ID != nil && e.Method != nil {
			if seen[string(e.ID)] {
				return invalid(nil, "batch message %d repeats the id %s", i+1, e.ID)
			}
			seen[string(e.ID)] = true
		}
	}
	return nil
}
