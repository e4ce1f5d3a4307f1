package mcphttp

import (
	"encoding/json"
	"net/http"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// httpError writes a JSON-RPC style error body for transport-level refusals.
func httpError(w http.ResponseWriter, status int, code errcode.Code, msg string) {
	writeError(w, status, errcode.New(code, "%s", msg))
}

// writeError writes e as a JSON-RPC error body whose data carries the
// canonical {code, message, retryable[, retryAfterMs]}.
func writeError(w http.ResponseWriter, status int, e *errcode.Error) {
	data := map[string]any{"code": string(e.Code), "message": e.Message, "retryable": e.Retryable}
	if e.RetryAfterMs > 0 {
		data["retryAfterMs"] = e.RetryAfterMs
	}
	writeJSON(w, status, map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": -32001, "message": string(e.Code) + ": " + e.Message, "data": data},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
