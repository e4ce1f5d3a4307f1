package retrieve

import "github.com/dir2mcp/dir2mcp/lib/record"

// route is where a search looks.
type route struct {
	used  string   // index_used reported to the client
	kinds []string // index kinds searched
}

func chooseRoute(req Request) route {
	switch req.Index {
	case IndexText:
		return route{used: IndexText, kinds: []string{record.KindText}}
	case IndexCode:
		return route{used: IndexCode, kinds: []string{record.KindCode}}
	case IndexBoth:
		return route{used: IndexBoth, kinds: []string{record.KindText, record.KindCode}}
	}
	// auto: filters that can only match one kind decide; otherwise search both.
	if len(req.DocTypes) > 0 {
		code, text := false, false
		for _, t := range req.DocTypes {
			if t == record.DocCode {
				code = true
			} else {
				text = true
			}
		}
		if code && !text {
			return route{used: IndexCode, kinds: []string{record.KindCode}}
		}
		if text && !code {
			return route{used: IndexText, kinds: []string{record.KindText}}
		}
	}
	// Both indexes, on equal terms: a code-looking query does not tilt
	// the balance (measured: the tilt pushed answering docs sections below
	// code when a question named an API, e.g. "request.body").
	return route{used: IndexBoth, kinds: []string{record.KindText, record.KindCode}}
}
