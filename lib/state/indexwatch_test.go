package state

import (
	"os"
	"os/exec"
	"testing"
)

// TestIndexingWatchFollowsCorpusWrites: the watch answers as corpus.json
// reads after every write (each one the same size as the one before), a
// run whose process is gone is not going, and a missing file is an error.
func TestIndexingWatchFollowsCorpusWrites(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	w := d.WatchIndexing()
	if _, err := w.Running(); err == nil {
		t.Fatal("no corpus.json: want an error")
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no `true` to make a finished process:", err)
	}
	steps := []struct {
		ix   Indexing
		want bool
	}{
		{Indexing{Running: true, PID: os.Getpid(), JobID: "a"}, true},
		{Indexing{Running: false, PID: os.Getpid(), JobID: "b"}, false},
		{Indexing{Running: true, PID: os.Getpid(), JobID: "c"}, true},
		{Indexing{Running: true, PID: gone.Process.Pid, JobID: "d"}, false},
	}
	for i, s := range steps {
		if err := d.WriteCorpus(Corpus{Root: "/r", Indexing: s.ix}); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second answer is the cached one
			got, err := w.Running()
			if err != nil || got != s.want {
				t.Fatalf("step %d: running %v, %v; want %v", i, got, err, s.want)
			}
		}
	}
	os.Remove(d.Join(CorpusFile))
	if _, err := w.Running(); err == nil {
		t.Fatal("corpus.json removed: want an error")
	}
}
