package mcphttp

import (
	"bytes"
	"io"
	"net/http"

	"github.com/dir2mcp/dir2mcp/lib/rpcframe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// checkIDs refuses a POST whose JSON-RPC id the SDK would not send back
// exactly (a number beyond ±(2^53-1), with a fraction or an exponent, null,
// or not a string or a number): 400 with a -32600 error echoing the id as
// sent. A body over limit passes on unread past limit+1 bytes, so the SDK
// still answers 413.
func checkIDs(limit int64, next http.Handler) http.Handler {
	if limit <= 0 {
		limit = mcp.DefaultMaxRequestBodyBytes
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		if err != nil {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if int64(len(body)) <= limit {
			if ref := rpcframe.CheckIDs(body); ref != nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write(append(ref.Response(), '\n'))
				return
			}
		}
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		next.ServeHTTP(w, r)
	})
}
