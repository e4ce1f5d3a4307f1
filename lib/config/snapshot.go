package config

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// SnapshotFileName is the effective-config snapshot in the state dir
// (SPEC §4.1).
const SnapshotFileName = ".dir2mcp.yaml.snapshot"

// WriteSnapshot atomically writes the resolved config to path with mode
// 0600 (SPEC §4.1, §16.1.1). Each secret is recorded only by its source
// metadata, e.g. {source: env, name: MISTRAL_API_KEY, set: true}; no
// plaintext credential is ever written. Config has no field that can
// hold the bearer token (security.auth names only its file or env var).
// With a non-nil src, keys not at their default carry a source comment.
func WriteSnapshot(path string, cfg *Config, src *Sources) error {
	root := treeOf(cfg, src, true)
	root.HeadComment = "dir2mcp effective configuration snapshot (resolved values).\nSecrets are recorded by source only, never by value."
	var b bytes.Buffer
	if err := encodeYAML(&b, root); err != nil {
		return errcode.Wrap(errcode.Internal, err, "encoding config snapshot: %v", err)
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() == 0o600 {
			return nil // unchanged (a restart with the same config): no write, no fsync
		}
	}
	if err := writeFileAtomic(path, b.Bytes(), 0o600); err != nil {
		return errcode.Wrap(errcode.Internal, err, "writing config snapshot %s: %v", path, err)
	}
	return nil
}

// writeFileAtomic writes data to a temp file beside path with mode perm,
// syncs it and renames it over path, so readers see the old or the new
// file, never a partial one.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
