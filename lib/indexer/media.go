package indexer

import (
	"sort"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

// Media holds the engines that turn PDFs, images and audio into text. A
// nil *Media has none: PDF text layers are still read (offline, pure Go)
// and archives expanded, while images, scanned pages and audio wait for a
// provider.
type Media struct {
	// OCR recognises images and PDF pages.
	OCR ocr.Engine
	// OCRLocal reports that OCR is the offline engine (tesseract): PDF
	// pages that have a text layer keep it even in ingest.pdf.mode ocr.
	OCRLocal bool
	WhyNoOCR string // shown on documents waiting for OCR
	// STT transcribes audio; Timestamps asks it for timed segments.
	STT        transcript.Transcriber
	Timestamps bool
	WhyNoSTT   string // shown on audio waiting for a provider
}

func (m *Media) ocr() ocr.Engine {
	if m == nil {
		return nil
	}
	return m.OCR
}

func (m *Media) stt() transcript.Transcriber {
	if m == nil {
		return nil
	}
	return m.STT
}

func (m *Media) whyNoOCR() string {
	if m == nil || m.WhyNoOCR == "" {
		return "no OCR engine is configured (set MISTRAL_API_KEY, or install tesseract)"
	}
	return m.WhyNoOCR
}

func (m *Media) whyNoSTT() string {
	if m == nil || m.WhyNoSTT == "" {
		return "no speech-to-text provider is configured (set MISTRAL_API_KEY, or ELEVENLABS_API_KEY with stt.provider elevenlabs)"
	}
	return m.WhyNoSTT
}

// identity names the engines for the index policy.
func (m *Media) identity() []string {
	out := []string{"ocr=none", "stt=none"}
	if e := m.ocr(); e != nil {
		out[0] = "ocr=" + e.Provider() + "/" + e.Model()
	}
	if e := m.stt(); e != nil {
		out[1] = "stt=" + e.Provider() + "/" + e.Model()
		if m.Timestamps {
			out[1] += "+timestamps"
		}
	}
	return out
}

// deferral explains why documents of a type are recorded but not extracted.
type deferral struct {
	Code   errcode.Code
	Reason string
}

// deferredTypes lists the document types this configuration and these
// engines cannot turn into text: they are recorded as skipped with a
// reason (never as errors) and picked up automatically once the policy
// changes (a mode is switched on, a provider configured).
func deferredTypes(cfg *config.Config, m *Media) map[string]deferral {
	d := map[string]deferral{}
	off := func(docType, key string) {
		d[docType] = deferral{errcode.DocTypeUnsupported, "disabled by " + key + "=off"}
	}
	if cfg.Ingest.PDF.Mode == "off" {
		off(record.DocPDF, "ingest.pdf.mode")
	}
	switch {
	case cfg.Ingest.Images.Mode == "off":
		off(record.DocImage, "ingest.images.mode")
	case m.ocr() == nil:
		d[record.DocImage] = deferral{errcode.AwaitingProvider, "image text needs OCR: " + m.whyNoOCR()}
	}
	switch {
	case cfg.Ingest.Audio.Mode == "off":
		off(record.DocAudio, "ingest.audio.mode")
	case m.stt() == nil:
		d[record.DocAudio] = deferral{errcode.AwaitingProvider, "audio needs speech-to-text: " + m.whyNoSTT()}
	}
	if cfg.Ingest.Archives.Mode == "off" {
		off(record.DocArchive, "ingest.archives.mode")
	}
	return d
}

func awaitingTypes(cfg *config.Config, m *Media) []string {
	var out []string
	for t, d := range deferredTypes(cfg, m) {
		out = append(out, t+":"+string(d.Code))
	}
	sort.Strings(out)
	return out
}

// remote reports whether an engine calls a provider over the network.
func (m *Media) remote() bool {
	return m != nil && (m.OCR != nil && !m.OCRLocal || m.STT != nil)
}
