package indexer

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/state"
)

// A job stopped by cancellation is reported as interrupted (never as
// complete) in its event and in corpus.json; the next incremental job says
// it resumes it, and a full reindex does not.
func TestReporterInterruptedAndResumed(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "hello\n"})
	var out bytes.Buffer
	rep := &Reporter{Root: f.root, Dir: f.dir, Store: f.st, Events: events.NewHuman(&out, &out, false)}
	stop := rep.Start(context.Background(), "job_one", "incremental", &Progress{})
	stop(context.Canceled)
	if s := out.String(); !strings.Contains(s, "WARN: Indexing interrupted: ") || strings.Contains(s, "Indexing complete") {
		t.Fatalf("interrupted job reported as:\n%s", s)
	}
	c, err := f.dir.ReadCorpus()
	if err != nil || !c.Indexing.Interrupted || c.Indexing.Running || c.Indexing.JobID != "job_one" {
		t.Fatalf("corpus.json after interruption: %+v %v", c.Indexing, err)
	}

	// Another process resumes it (this one's pid would be a job of its own).
	c.Indexing.PID = 0
	f.dir.WriteCorpus(c)
	out.Reset()
	rep = &Reporter{Root: f.root, Dir: f.dir, Store: f.st, Events: events.NewHuman(&out, &out, false)}
	rep.Start(context.Background(), "job_two", "full", &Progress{})(nil)
	if rep.ResumedFrom != "" || strings.Contains(out.String(), "Resuming") {
		t.Errorf("a full reindex claims to resume:\n%s", out.String())
	}

	c.Indexing = state.Indexing{JobID: "job_killed", Running: true, PID: 1 << 30} // a killed process
	f.dir.WriteCorpus(c)
	out.Reset()
	rep = &Reporter{Root: f.root, Dir: f.dir, Store: f.st, Events: events.NewHuman(&out, &out, false)}
	rep.Start(context.Background(), "job_three", "incremental", &Progress{})(nil)
	if rep.ResumedFrom != "job_killed" || !strings.Contains(out.String(), "Resuming interrupted indexing job job_killed") ||
		!strings.Contains(out.String(), "Indexing complete") {
		t.Errorf("resume of a killed job not reported:\n%s", out.String())
	}
	if c, _ := f.dir.ReadCorpus(); c.Indexing.Interrupted || c.Indexing.ResumedFrom != "job_killed" {
		t.Errorf("corpus.json after the resumed job: %+v", c.Indexing)
	}
}
