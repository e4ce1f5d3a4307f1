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
	off := func(key string) deferral {
		return deferral{errcode.DocTypeUnsupported, "disabled by " + key + "=off"}
	}
	if cfg.Ingest.PDF.Mode == "off" {
		m[record.DocPDF] = off("ingest.pdf.mode")
	} else {
		m[record.DocPDF] = deferral{errcode.AwaitingProvider, "PDF text needs an OCR/PDF provider, none is configured"}
	}
	if cfg.Ingest.Images.Mode == "off" {
		m[record.DocImage] = off("ingest.images.mode")
	} else {
		m[record.DocImage] = deferral{errcode.AwaitingProvider, "image text needs an OCR provider, none is configured"}
	}
	if cfg.Ingest.Audio.Mode == "off" {
		m[record.DocAudio] = off("ingest.audio.mode")
	} else {
		m[record.DocAudio] = deferral{errcode.AwaitingProvider, "audio needs a speech-to-text provider, none is configured"}
	}
	if cfg.Ingest.Archives.Mode == "off" {
		m[record.DocArchive] = off("ingest.archives.mode")
	} else {
		m[record.DocArchive] = deferral{errcode.AwaitingProvider, "archive members are not expanded by this build"}
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
