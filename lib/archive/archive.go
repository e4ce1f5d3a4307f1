// Package archive reads zip, tar, tar.gz and tar.bz2 archives as
// collections of documents (SPEC §7.3, §17): each regular member is
// streamed to the caller with a bounded reader, named
// "archive.zip!/path/in/zip" in rel_path style, and readable again on its
// own for open_file. Hostile archives are contained: member names that
// would escape (zip-slip: "..", absolute or drive paths) are rejected,
// and the number of members, the bytes each expands to, the bytes the
// whole archive expands to and the nesting depth are capped, with memory
// bounded by the caps and nothing written to disk.
package archive

import (
	"path"
	"strings"
)

// Sep joins an archive's rel_path and a member path: "docs.zip!/a/b.txt".
const Sep = "!/"

// Format is an archive format.
type Format string

// Supported formats.
const (
	Zip    Format = "zip"
	Tar    Format = "tar"
	TarGz  Format = "tar.gz"
	TarBz2 Format = "tar.bz2"
)

// FormatOf returns the format a file name's extension says, or "" when the
// name is not a supported archive.
func FormatOf(name string) Format {
	n := strings.ToLower(path.Base(name))
	switch {
	case strings.HasSuffix(n, ".zip"):
		return Zip
	case strings.HasSuffix(n, ".tar"):
		return Tar
	case strings.HasSuffix(n, ".tar.gz"), strings.HasSuffix(n, ".tgz"):
		return TarGz
	case strings.HasSuffix(n, ".tar.bz2"), strings.HasSuffix(n, ".tbz2"), strings.HasSuffix(n, ".tbz"):
		return TarBz2
	}
	return ""
}

// Join returns the rel_path of member inside the archive at archiveRel;
// more members nest: Join("a.zip", "in.tar.gz", "x.txt") is
// "a.zip!/in.tar.gz!/x.txt".
func Join(archiveRel string, members ...string) string {
	return strings.Join(append([]string{archiveRel}, members...), Sep)
}

// Split splits a rel_path at its first Sep into the archive's rel_path and
// the member path (which may itself contain Sep for nested archives). ok is
// false for a path that is not inside an archive.
func Split(rel string) (archiveRel, member string, ok bool) {
	i := strings.Index(rel, Sep)
	if i <= 0 || i+len(Sep) >= len(rel) {
		return rel, "", false
	}
	return rel[:i], rel[i+len(Sep):], true
}

// Limits caps what an archive may expand to. Zero fields take the
// defaults noted.
type Limits struct {
	// MaxMembers is the most members read, nested ones included
	// (default 10000).
	MaxMembers int
	// MaxMemberBytes is the most bytes one member may expand to
	// (default 64 MiB); larger members are skipped.
	MaxMemberBytes int64
	// MaxTotalBytes is the most bytes the archive may expand to, skipped
	// and nested data included (default 512 MiB); past it the walk stops
	// with FILE_TOO_LARGE.
	MaxTotalBytes int64
	// MaxDepth is how deep archives nest: 1 reads only the top archive's
	// members, 2 (the default) also expands archives inside it, ...
	MaxDepth int
	// MaxNestedZipBytes bounds a zip inside an archive, which must be held
	// in memory to be read (default 16 MiB); tar nests by streaming.
	MaxNestedZipBytes int64
}

func (l Limits) normalized() Limits {
	if l.MaxMembers <= 0 {
		l.MaxMembers = 10000
	}
	if l.MaxMemberBytes <= 0 {
		l.MaxMemberBytes = 64 << 20
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = 512 << 20
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = 2
	}
	if l.MaxNestedZipBytes <= 0 {
		l.MaxNestedZipBytes = 16 << 20
	}
	return l
}
