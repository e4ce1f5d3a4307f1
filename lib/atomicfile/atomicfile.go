// Package atomicfile replaces files atomically: readers see the old file or
// the new one, never a partial write.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write replaces path with data, created with perm.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteVolatile replaces path with data, created with perm, atomically
// but without syncing it to disk: for files that describe a live process
// and are written again at every start (connection.json), where a crash
// leaves a stale file either way and a sync is only latency before the
// process can say it is ready.
func WriteVolatile(path string, data []byte, perm os.FileMode) error {
	return write(path, perm, false, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc replaces path with what fill writes: it writes a temporary file
// in the same directory, syncs it, renames it over path and syncs the
// directory. On any error path is left untouched and the temp file removed.
func WriteFunc(path string, perm os.FileMode, fill func(io.Writer) error) error {
	return write(path, perm, true, fill)
}

func write(path string, perm os.FileMode, sync bool, fill func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = fill(f); err != nil {
		return err
	}
	if sync {
		if err = f.Sync(); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	if !sync {
		return nil
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
