package mcpserver

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"slices"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// digestAlgorithms are the digests checksum computes.
var digestAlgorithms = []string{"md5", "sha1", "sha256", "sha512"}

var checksumParams = []param{
	str("rel_path", "file path relative to the root (an archive member too: docs.zip!/a.txt)").need(),
	strList("algorithms", "digests to compute in one pass over the file", digestAlgorithms...).withDefault([]string{"sha256"}),
}

type checksumResult struct {
	RelPath   string            `json:"rel_path"`
	SizeBytes int64             `json:"size_bytes"`
	Digests   map[string]string `json:"digests"`
}

func newHash(alg string) hash.Hash {
	switch alg {
	case "md5":
		return md5.New()
	case "sha1":
		return sha1.New()
	case "sha512":
		return sha512.New()
	}
	return sha256.New()
}

// checksum streams a whole file (or archive member) through the requested
// digests. It reads what open_file may read and returns no content.
func (s *Server) checksum(ctx context.Context, a *args) (toolOut, error) {
	algs := a.strings("algorithms")
	if !a.has("algorithms") {
		algs = []string{"sha256"}
	}
	if len(algs) == 0 {
		return toolOut{}, errcode.FieldError(errcode.InvalidField, "algorithms", "algorithms must name at least one of %s", strings.Join(digestAlgorithms, ", "))
	}
	slices.Sort(algs)
	algs = slices.Compact(algs)
	t, err := s.access.Open(ctx, a.str("rel_path"))
	if err != nil {
		return toolOut{}, err
	}
	r, size, err := s.access.Stream(ctx, &t)
	if err != nil {
		return toolOut{}, err
	}
	defer r.Close()
	hs := make([]hash.Hash, len(algs))
	ws := make([]io.Writer, len(algs))
	for i, alg := range algs {
		hs[i] = newHash(alg)
		ws[i] = hs[i]
	}
	n, err := io.CopyBuffer(io.MultiWriter(ws...), ctxReader{ctx, r}, make([]byte, 1<<20))
	if err != nil {
		if ctx.Err() != nil {
			return toolOut{}, ctx.Err()
		}
		return toolOut{}, errcode.Wrap(errcode.FileNotFound, err, "%s: read failed after %d bytes: %v", t.Rel, n, err)
	}
	res := checksumResult{RelPath: t.Rel, SizeBytes: n, Digests: map[string]string{}}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d bytes)", t.Rel, n)
	if n != size {
		fmt.Fprintf(&b, " — the file changed while being read (%d bytes at open)", size)
	}
	for i, alg := range algs {
		res.Digests[alg] = hex.EncodeToString(hs[i].Sum(nil))
		fmt.Fprintf(&b, "\n%s  %s", alg, res.Digests[alg])
	}
	return toolOut{out: res, summary: b.String(), files: []string{t.Rel}}, nil
}

// ctxReader stops reading when ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
