package rootfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// CheckReadable returns ROOT_INACCESSIBLE when the root directory cannot be
// listed or entered (no read or search permission), so a command fails
// with the root's own error instead of a later one about a file inside it.
func (r *Root) CheckReadable() error {
	f, err := os.Open(r.dir)
	if err == nil {
		_, err = f.Readdirnames(1)
		f.Close()
		if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err == nil {
		// Resolving "<dir>/." needs search permission on the directory.
		_, err = os.Stat(r.dir + string(filepath.Separator) + ".")
	}
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return errcode.Wrap(errcode.RootInaccessible, err, "root %s is not readable: %v", r.dir, err)
}
