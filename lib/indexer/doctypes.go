package indexer

import (
	"sort"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// deferral explains why documents of a type are recorded but not extracted.
type deferral struct {
	Code   errcode.Code
	Reason string
}

// deferredTypes lists the document types this configuration cannot turn into
// text yet: they are recorded as skipped with a reason (never as errors) and
// picked up automatically once the policy changes.
func deferredTypes(cfg *config.Config) map[string]deferral {
	m := map[string]deferral{}
	for _, t := range []struct {
		docType, mode, key, why string
	}{
		{record.DocPDF, cfg.Ingest.PDF.Mode, "ingest.pdf.mode", "PDF text needs an OCR/PDF provider, none is configured"},
		{record.DocImage, cfg.Ingest.Images.Mode, "ingest.images.mode", "image text needs an OCR provider, none is configured"},
		{record.DocAudio, cfg.Ingest.Audio.Mode, "ingest.audio.mode", "audio needs a speech-to-text provider, none is configured"},
		{record.DocArchive, cfg.Ingest.Archives.Mode, "ingest.archives.mode", "archive members are not expanded by this build"},
	} {
		if t.mode == "off" {
			m[t.docType] = deferral{errcode.DocTypeUnsupported, "disabled by " + t.key + "=off"}
		} else {
			m[t.docType] = deferral{errcode.AwaitingProvider, t.why}
		}
	}
	return m
}

func awaitingTypes(cfg *config.Config) []string {
	var out []string
	for t, d := range deferredTypes(cfg) {
		out = append(out, t+":"+string(d.Code))
	}
	sort.Strings(out)
	return out
}
