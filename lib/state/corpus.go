package state

import (
	"encoding/json"
	"os"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
)

// Corpus is corpus.json (SPEC §4.4): a profile and progress summary that
// `status` and tools can read without opening the store.
type Corpus struct {
	Root      string   `json:"root"`
	Profile   Profile  `json:"profile"`
	Models    Models   `json:"models"`
	Indexing  Indexing `json:"indexing"`
	UpdatedAt string   `json:"updated_at"`
}

// Profile describes the corpus.
type Profile struct {
	DocCounts map[string]int64 `json:"doc_counts"`
	CodeRatio float64          `json:"code_ratio"`
}

// Models names the models in use (SPEC §15.6 models).
type Models struct {
	EmbedText   string `json:"embed_text"`
	EmbedCode   string `json:"embed_code"`
	OCR         string `json:"ocr"`
	STTProvider string `json:"stt_provider"`
	STTModel    string `json:"stt_model"`
	Chat        string `json:"chat"`
}

// Indexing is the state of the current (or last) indexing job.
type Indexing struct {
	JobID           string `json:"job_id"`
	Running         bool   `json:"running"`
	Mode            string `json:"mode"` // incremental | full
	PID             int    `json:"pid,omitempty"`
	Scanned         int64  `json:"scanned"`
	Indexed         int64  `json:"indexed"`
	Skipped         int64  `json:"skipped"`
	Deleted         int64  `json:"deleted"`
	Unchanged       int64  `json:"unchanged"`
	Representations int64  `json:"representations"`
	ChunksTotal     int64  `json:"chunks_total"`
	EmbeddedOK      int64  `json:"embedded_ok"`
	Errors          int64  `json:"errors"`
	StartedAt       string `json:"started_at,omitempty"`
	FinishedAt      string `json:"finished_at,omitempty"`
	// Interrupted is set when the job stopped before it finished (the
	// process was stopped or its stdio client left); the next run resumes.
	Interrupted bool `json:"interrupted"`
	// ResumedFrom is the interrupted job this one resumed.
	ResumedFrom string `json:"resumed_from,omitempty"`
}

// Live is ix as users should see it: a job recorded as running whose
// process is gone (killed, crashed) is not running but interrupted.
func (ix Indexing) Live() Indexing {
	if ix.Running && !ProcessAlive(ix.PID) {
		ix.Running, ix.Interrupted = false, true
	}
	return ix
}

// WriteCorpus writes corpus.json atomically.
func (d Dir) WriteCorpus(c Corpus) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(d.Join(CorpusFile), append(b, '\n'), FileMode)
}

// ReadCorpus reads corpus.json.
func (d Dir) ReadCorpus() (Corpus, error) {
	var c Corpus
	b, err := os.ReadFile(d.Join(CorpusFile))
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(b, &c)
}
