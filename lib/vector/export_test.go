package vector

import "time"

// ForceANN makes every snapshot with at least one vector search segments
// of at least minRows rows through inverted files, builds them now, and
// returns a function restoring the defaults.
func ForceANN(s *Snapshot, minRows int) func() {
	oldV, oldR := ANNMinVectors, ivfMinRows
	ANNMinVectors, ivfMinRows = 1, minRows
	for _, g := range s.segs {
		if g.rows() >= minRows {
			g.invertedFile()
			for g.ivf.ready.Load() == nil {
				time.Sleep(time.Millisecond)
			}
		}
	}
	return func() { ANNMinVectors, ivfMinRows, ivfListRows, ivfProbePermille = oldV, oldR, 2048, 100 }
}

// SetIVF sets the rows per list and the probed permille of lists.
func SetIVF(listRows, probePermille int) { ivfListRows, ivfProbePermille = listRows, probePermille }
