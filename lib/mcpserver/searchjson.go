package mcpserver

import (
	"math"
	"strconv"

	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

// jsonAppender is a tool output that writes its own JSON, exactly as
// json.Marshal writes it (ok false: let json.Marshal write it).
type jsonAppender interface {
	appendJSON(b []byte) ([]byte, bool)
}

// appendJSON writes r as json.Marshal does, without reflection (a search
// answer is encoded on every call). It declines (ok false) a value
// json.Marshal would refuse (a non-finite score, an unknown span kind).
// It writes a fixed list of fields: TestSearchResultJSONIsJSONMarshal
// fails when searchResult or retrieve.Hit gains or changes one.
func (r searchResult) appendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"query":`...)
	b = appendJSONString(b, r.Query)
	b = append(b, `,"k":`...)
	b = strconv.AppendInt(b, int64(r.K), 10)
	b = append(b, `,"index_used":`...)
	b = appendJSONString(b, r.IndexUsed)
	b = append(b, `,"hits":`...)
	if r.Hits == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, h := range r.Hits {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendHitJSON(b, h); !ok {
				return nil, false
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"indexing_complete":`...)
	b = strconv.AppendBool(b, r.IndexingComplete)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, r.Truncated)
	if r.OmittedHits != 0 {
		b = append(b, `,"omitted_hits":`...)
		b = strconv.AppendInt(b, int64(r.OmittedHits), 10)
	}
	if r.NextCursor != "" {
		b = append(b, `,"next_cursor":`...)
		b = appendJSONString(b, r.NextCursor)
	}
	return append(b, '}'), true
}

func appendHitJSON(b []byte, h retrieve.Hit) ([]byte, bool) {
	b = append(b, `{"chunk_id":`...)
	b = strconv.AppendInt(b, h.ChunkID, 10)
	b = append(b, `,"rel_path":`...)
	b = appendJSONString(b, h.RelPath)
	b = append(b, `,"doc_type":`...)
	b = appendJSONString(b, h.DocType)
	b = append(b, `,"rep_type":`...)
	b = appendJSONString(b, h.RepType)
	b = append(b, `,"score":`...)
	var ok bool
	if b, ok = appendJSONFloat(b, h.Score); !ok {
		return nil, false
	}
	b = append(b, `,"snippet":`...)
	b = appendJSONString(b, h.Snippet)
	b = append(b, `,"span":`...)
	span, err := h.Span.MarshalJSON() // compact, and escaped as json.Marshal escapes
	if err != nil {
		return nil, false
	}
	b = append(b, span...)
	return append(b, '}'), true
}

// appendJSONFloat writes f as json.Marshal writes a float64 (false for
// NaN and infinities, which it refuses).
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 → e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
