package cli

import (
	"errors"
	"io/fs"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// explicitStateDir is set when the command was given --state-dir.
var explicitStateDir atomic.Bool

// explainStateDir turns a state directory that cannot be written (a
// read-only root, a read-only file system) from STORE_CORRUPT — nothing is
// corrupt — into ROOT_INACCESSIBLE (exit 3) with the way out: keep the
// state elsewhere with --state-dir. When --state-dir itself was given it is
// CONFIG_INVALID (exit 2) naming that flag. Any other STORE_CORRUPT gets
// the hint that rebuilds the index; other errors pass unchanged.
func explainStateDir(err error) error {
	var e *errcode.Error
	if !errors.As(err, &e) || e.Code != errcode.StoreCorrupt {
		return err
	}
	if !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EROFS) {
		if !strings.Contains(e.Message, "reindex --force") {
			e.Message += "; if the index is damaged, `dir2mcp reindex --force` moves it aside and builds a new one"
		}
		return err
	}
	if explicitStateDir.Load() {
		return errcode.FieldError(errcode.ConfigInvalid, "--state-dir",
			"%s (the --state-dir directory is not writable; pass a writable one)", e.Message)
	}
	return errcode.Wrap(errcode.RootInaccessible, err,
		"%s (the directory is not writable; keep the index elsewhere: --state-dir <writable dir>)", e.Message)
}
