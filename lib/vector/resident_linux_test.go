package vector

import (
	"bufio"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The segments a writer writes and merges do not stay in its resident
// set: an index run's RSS is bounded by its batches, not by the index it
// has written (the Linux source's run held 300 MB of its codes before).
func TestWrittenSegmentsLeaveTheResidentSet(t *testing.T) {
	w, path := newWriter(t, 512)
	r := rand.New(rand.NewSource(5))
	const flushes, rows = 4, 8000 // segments of ~20 MB
	for f := range flushes {
		for i := range rows {
			must(t, w.Upsert(int64(f*rows+i), unit(r, 512)))
		}
		must(t, w.Flush())
	}
	var size, meta int64
	for _, g := range w.snapSegs() {
		size += g.size
		lay := layoutOf(g.dim, g.rows(), len(g.tombs), g.nbits)
		meta += lay.vecs - lay.labels
	}
	rss := mappedRSS(t, filepath.Dir(path))
	t.Logf("%d segments, %d KB (meta sections %d KB), %d KB of them resident", len(w.snapSegs()), size>>10, meta>>10, rss>>10)
	// Their meta sections (labels, codes, one-bit codes: a fifth of a
	// segment) were resident; a lookup of labels maps back what it touches
	// (on some file systems a folio of a few MB).
	if rss > meta/2 {
		t.Errorf("%d KB of the writer's segments resident, their meta sections are %d KB", rss>>10, meta>>10)
	}
}

// mappedRSS returns the resident bytes of this process's mappings of
// files under dir (/proc/self/smaps).
func mappedRSS(t *testing.T, dir string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) >= 5 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":"):
			in = len(fs) >= 6 && strings.HasPrefix(fs[5], dir)
		case in && fs[0] == "Rss:" && len(fs) >= 2:
			kb, _ := strconv.ParseInt(fs[1], 10, 64)
			total += kb << 10
		}
	}
	return total
}
