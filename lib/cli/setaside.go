package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
	ucli "github.com/urfave/cli/v3"
)

// indexFiles are the state dir's files that make up the index itself; the
// token, scoped tokens, config snapshot, audit log, caches and payments are
// not among them.
func indexFiles() []string {
	return []string{store.FileName, store.FileName + "-wal", store.FileName + "-shm",
		vector.FileName(record.KindText), vector.FileName(record.KindCode),
		vector.SegmentDir(record.KindText), vector.SegmentDir(record.KindCode), postings.FileName, postings.SegmentDir,
		state.CorpusFile}
}

// setAsideIndex moves the index files of the command's state dir into
// <state dir>/old-<UTC time>/ under the writer locks, so that `reindex
// --force` can rebuild an index this build cannot open (a newer schema, a
// damaged file). The old files stay inside the state dir, which is never
// indexed or served. It returns the directory they went to, or "" when
// there was no index.
func setAsideIndex(cmd *ucli.Command, now time.Time) (string, error) {
	root, err := rootfs.Open(cmd.String("dir"))
	if err != nil {
		return "", err
	}
	dir := state.Resolve(root.Dir(), cmd.String("state-dir"))
	if _, err := os.Stat(dir.Join(store.FileName)); errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	for _, name := range []string{state.IndexLock, state.VectorsLock, state.PostingsLock} {
		lock, err := dir.TryLock(name)
		if err != nil {
			return "", err
		}
		defer lock.Unlock()
	}
	old := dir.Join("old-" + now.UTC().Format("20060102T150405Z"))
	if err := os.Mkdir(old, 0o700); err != nil {
		return "", errcode.Wrap(errcode.StoreCorrupt, err, "cannot create %s: %v", old, err)
	}
	for _, name := range indexFiles() {
		err := os.Rename(dir.Join(name), old+string(os.PathSeparator)+name)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", errcode.Wrap(errcode.StoreCorrupt, err, "cannot move %s aside: %v", dir.Join(name), err)
		}
	}
	return old, nil
}

// reindexForce sets the old index aside and says where it went.
func reindexForce(cmd *ucli.Command) error {
	old, err := setAsideIndex(cmd, time.Now())
	if err != nil || old == "" {
		return err
	}
	if !cmd.Bool("quiet") {
		fmt.Fprintf(cmd.Root().ErrWriter, "Moved the old index to %s (delete it once the new one works); rebuilding.\n", old)
	}
	return nil
}
