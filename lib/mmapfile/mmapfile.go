// Package mmapfile maps whole files read-only into memory, and tells file
// versions apart (FileID). Mapped pages are read on first touch, so
// opening costs no I/O beyond what is looked at, and the kernel may
// reclaim them (they count as file-backed, not anonymous, memory).
package mmapfile

// Map maps the whole file at path read-only and shared; release unmaps it.
// An empty file maps to nil. The file must not be truncated while mapped
// (dir2mcp maps only immutable files, replaced by rename, never rewritten).
func Map(path string) (data []byte, release func(), err error) { return mapFile(path) }

// Evict drops the process's resident pages of a mapping made by Map (they
// stay in the page cache and fault back in when touched), so a pass over a
// large file does not grow the resident set by its size.
func Evict(b []byte) { evict(b) }
