package indexer

import (
	"strings"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

// Credentials inside indexed documents (security.redact) are masked before
// the text is chunked, so the index — chunk text, the full-text index,
// stored representations, titles — and every provider the text is sent to
// (embedders, chat models) never hold them, and a search for a key finds
// nothing. Masking the whole document first also catches a private key
// block that chunking would cut in two. Line breaks are kept, so line
// citations stay exact.

var (
	redactorsMu sync.Mutex
	redactors   = map[string]*exclude.Redactor{}
)

// Redactor returns the masking of cfg's security.redact (nil when it is
// off); compiled once per distinct setting. Errors are CONFIG_INVALID.
func Redactor(cfg *config.Config) (*exclude.Redactor, error) {
	rc := cfg.Security.Redact
	if !rc.Enabled {
		return nil, nil
	}
	patterns := append(append([]string{}, cfg.Security.SecretPatterns...), rc.Patterns...)
	key := rc.Replacement + "\x00" + strings.Join(patterns, "\x00")
	redactorsMu.Lock()
	defer redactorsMu.Unlock()
	if r, ok := redactors[key]; ok {
		return r, nil
	}
	r, err := exclude.NewRedactor("security.redact.patterns", patterns, rc.Replacement)
	if err != nil {
		// Name the offending key: the secret patterns come first.
		if _, e := exclude.NewRedactor("security.secret_patterns", cfg.Security.SecretPatterns, rc.Replacement); e != nil {
			return nil, e
		}
		if _, e := exclude.NewRedactor("security.redact.patterns", rc.Patterns, rc.Replacement); e != nil {
			return nil, e
		}
		return nil, err
	}
	r = r.WithLiterals(events.Secrets) // this process's own tokens and keys, wherever they appear
	redactors[key] = r
	return r, nil
}

// masker returns cfg's Redactor, or nil when it cannot be built (the
// config was validated and the server or run refused it already) or there
// is no config.
func masker(cfg *config.Config) *exclude.Redactor {
	if cfg == nil {
		return nil
	}
	r, _ := Redactor(cfg)
	return r
}

// RawText is the text the index holds for the bytes of a text file (code,
// text, markdown, data, HTML) under cfg: extracted from the bytes with
// their credentials masked (security.redact), and masked again for what
// extraction revealed. Whoever reads such a file's text again (grep, when
// the stored chunks cannot give it back) sees what the index saw.
func RawText(cfg *config.Config, data []byte, docType string) (extract.Result, error) {
	return maskedRawText(masker(cfg), data, docType)
}

func maskedRawText(r *exclude.Redactor, data []byte, docType string) (extract.Result, error) {
	src, masked := maskSource(r, data)
	res, err := extract.RawText(src, docType)
	if err != nil {
		return res, err
	}
	if masked == 0 && res.Text == string(src) {
		// Extraction revealed nothing the bytes did not show, and they
		// held nothing to mask: masking again would find nothing.
		return res, nil
	}
	maskExtracted(r, &res)
	return res, nil
}

// maskSource masks credentials in a text file's bytes before extraction,
// so the representation and its source map (HTML) are made from the masked
// file and stay consistent with each other and with open_file, which
// masks the same way.
func maskSource(r *exclude.Redactor, data []byte) ([]byte, int) {
	if !r.Enabled() {
		return data, 0
	}
	masked, n := r.Mask(string(data))
	if n == 0 {
		return data, 0
	}
	return []byte(masked), n
}

// maskExtracted masks what extraction revealed that the bytes did not show
// (UTF-16 text, HTML entities). A masked HTML line loses its markup marks
// (its byte offsets moved): its quote then shows the line as extracted.
func maskExtracted(r *exclude.Redactor, res *extract.Result) {
	masked, n := r.Mask(res.Text)
	if n == 0 {
		return
	}
	if res.Map != nil {
		before, after := strings.Split(res.Text, "\n"), strings.Split(masked, "\n")
		for i := range min(len(before), len(after), len(res.Map)) {
			if before[i] != after[i] {
				res.Map[i].Marks = nil
			}
		}
	}
	res.Text = masked
}

// maskTranscript masks the transcript's text and segments in place.
func maskTranscript(r *exclude.Redactor, tr *transcript.Transcript) {
	if !r.Enabled() {
		return
	}
	tr.Text, _ = r.Mask(tr.Text)
	for i := range tr.Segments {
		tr.Segments[i].Text, _ = r.Mask(tr.Segments[i].Text)
	}
}

// maskAbout masks a document's title, description and tags.
func maskAbout(r *exclude.Redactor, a *extract.About) {
	if !r.Enabled() {
		return
	}
	a.Title, _ = r.Mask(a.Title)
	a.Description, _ = r.Mask(a.Description)
	for i := range a.Tags {
		a.Tags[i], _ = r.Mask(a.Tags[i])
	}
}
