//go:build !unix

package scan

import "os"

// lstatMeta lstats path.
func lstatMeta(path string) (meta, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return meta{}, err
	}
	return metaOf(fi), nil
}
