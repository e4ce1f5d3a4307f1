package postings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Files in the state directory: the manifest names the segments of the
// index, oldest first, in SegmentDir. Writers replace it atomically after
// the segments it lists are durable, so a reader that reads one manifest
// sees one consistent set of segments.
const (
	FileName   = "postings.json"
	SegmentDir = "postings.segs"
	// FormatVersion is the manifest and segment format this build writes.
	FormatVersion = 1
)

// manifest describes one consistent version of the index.
type manifest struct {
	Format int `json:"format"`
	// StoreID is the id of the meta.sqlite the index was built from; an
	// index of another store is rebuilt.
	StoreID string `json:"store_id"`
	// Applied is the sequence number of the last store change (its
	// postings log, see lib/store) the segments reflect.
	Applied  int64      `json:"applied"`
	NextSeq  uint64     `json:"next_seq"`
	Segments []segEntry `json:"segments"`
}

// segEntry is one listed segment.
type segEntry struct {
	Seq  uint64 `json:"seq"`
	Rows uint32 `json:"rows"`
	Size int64  `json:"size"`
}

func manifestPath(stateDir string) string { return filepath.Join(stateDir, FileName) }

func segPath(stateDir string, seq uint64) string {
	return filepath.Join(stateDir, SegmentDir, segName(seq))
}

func segName(seq uint64) string { return fmt.Sprintf("%016x.seg", seq) }

// readManifest reads the manifest in stateDir; a missing one is
// fs.ErrNotExist.
func readManifest(stateDir string) (*manifest, error) {
	b, err := os.ReadFile(manifestPath(stateDir))
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "keyword index manifest %s: %v", manifestPath(stateDir), err)
	}
	if m.Format != FormatVersion {
		return nil, errcode.New(errcode.IndexVersionMismatch, "keyword index %s has format %d, this build reads %d (`dir2mcp reindex` rebuilds it)",
			manifestPath(stateDir), m.Format, FormatVersion)
	}
	return &m, nil
}

// writeManifest replaces the manifest in stateDir.
func writeManifest(stateDir string, m *manifest) error {
	m.Format = FormatVersion
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return atomicfile.Write(manifestPath(stateDir), b, 0o600)
}

// errSegmentGone reports that a listed segment vanished: a compaction
// replaced the manifest after it was read. Reading it again settles it.
var errSegmentGone = errors.New("segment replaced while opening")

// openSegments opens the segments m lists, reusing those of prev (same
// sequence number and size; numbers are never reused within a state dir).
func openSegments(stateDir string, m *manifest, prev *Snapshot) ([]*segment, error) {
	have := map[uint64]*segment{}
	if prev != nil {
		for _, g := range prev.segs {
			have[g.seq] = g
		}
	}
	segs := make([]*segment, 0, len(m.Segments))
	for _, e := range m.Segments {
		if g := have[e.Seq]; g != nil && g.size() == e.Size {
			segs = append(segs, g)
			continue
		}
		g, err := openSegment(segPath(stateDir, e.Seq), e.Seq)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errSegmentGone
		}
		if err != nil {
			return nil, errcode.Wrap(errcode.StoreCorrupt, err, "keyword index segment %s: %v", segName(e.Seq), err)
		}
		if g.size() != e.Size || g.counts.n != e.Rows {
			g.release()
			return nil, errcode.New(errcode.StoreCorrupt, "keyword index segment %s does not match its manifest entry", segName(e.Seq))
		}
		g.track()
		segs = append(segs, g)
	}
	return segs, nil
}

// openSnapshot reads the manifest in stateDir and opens the snapshot it
// describes, reusing prev's segments. A missing manifest is
// fs.ErrNotExist.
func openSnapshot(stateDir string, prev *Snapshot) (*Snapshot, error) {
	for try := 0; ; try++ {
		m, err := readManifest(stateDir)
		if err != nil {
			return nil, err
		}
		segs, err := openSegments(stateDir, m, prev)
		if errors.Is(err, errSegmentGone) && try < 3 {
			continue
		}
		if err != nil {
			return nil, err
		}
		return newSnapshot(segs, prev, m), nil
	}
}

// Open returns the snapshot of the index in stateDir (fs.ErrNotExist
// when there is none).
func Open(stateDir string) (*Snapshot, error) { return openSnapshot(stateDir, nil) }
