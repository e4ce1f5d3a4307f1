package scan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
)

// job is one entry in walk order: a file to process, or a warning.
type job struct {
	seq  int
	rel  string
	abs  string
	info fs.FileInfo // the target's, when following a symlink
	warn string      // non-empty: a warning, not a file
	// early: sent while the known states were loading, outside the window
	early bool

	// stat's
	meta    meta
	statErr error

	// results (doc nil: none)
	doc       *record.Document
	known     bool // the path is known and not deleted
	vanished  bool // removed between listing and reading
	bytesRead int64
}

// work processes jobs until they end: each file is statted at once, then
// compared and read once the known states are there. Until then statted
// jobs are held (at most earlyJobs in all), so the walk's lstats overlap
// the loading of the known states.
func (s *scanner) work(ctx context.Context, jobs <-chan *job, results chan<- *job) {
	var buf []byte
	var held []*job
	finish := func(j *job) {
		if j.warn == "" && ctx.Err() == nil {
			s.process(j, &buf)
		}
		results <- j
	}
	flush := func() {
		for _, j := range held {
			finish(j)
		}
		held = nil
	}
	for {
		if len(held) > 0 {
			select {
			case <-s.knownReady:
				flush()
				continue
			case j, ok := <-jobs:
				if !ok {
					<-s.knownReady
					flush()
					return
				}
				s.stat(j)
				held = append(held, j)
				continue
			}
		}
		j, ok := <-jobs
		if !ok {
			return
		}
		s.stat(j)
		if s.knownLoaded() {
			finish(j)
		} else {
			held = append(held, j)
		}
	}
}

// meta is what the scan needs of a file's metadata.
type meta struct {
	regular  bool
	size     int64
	mtimeNs  int64
	mtimeSec int64
}

func metaOf(fi fs.FileInfo) meta {
	t := fi.ModTime()
	return meta{regular: fi.Mode().IsRegular(), size: fi.Size(), mtimeNs: t.UnixNano(), mtimeSec: t.Unix()}
}

// stat reads a file job's metadata (lstat, or the symlink target's).
func (s *scanner) stat(j *job) {
	if j.warn != "" {
		return
	}
	if j.info != nil {
		j.meta = metaOf(j.info)
		return
	}
	j.meta, j.statErr = lstatMeta(j.abs)
}

// maxKeptBuf is the largest read buffer a worker keeps between files.
const maxKeptBuf = 32 << 20

// process classifies, checks and hashes one file, filling j.doc; work
// has statted it.
func (s *scanner) process(j *job, buf *[]byte) {
	fi := j.meta
	if err := j.statErr; err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			j.vanished = true
		} else {
			s.fail(j, 0, 0, err)
		}
		return
	}
	if !fi.regular {
		return
	}
	j.doc = &record.Document{}
	d := j.doc
	*d = record.NewDocument()
	d.Root, d.RelPath, d.SourceType = s.root, j.rel, record.SourceFile
	d.SizeBytes = fi.size
	d.MtimeNs = fi.mtimeNs
	d.MtimeUnix = fi.mtimeSec
	known, present := s.knownMap()[j.rel]
	present = present && !known.Deleted
	j.known = present

	name := path.Base(j.rel)
	cls, decided := classifyName(name)
	d.DocType, d.Lang = cls.docType, cls.lang
	if !decided {
		d.DocType = record.DocText // until the content says otherwise
	}
	// The walk entered only directories PathExcluded let through.
	if pat, ok := s.engine.PathExcludedIn(j.rel); ok {
		s.skip(j, known, present, errcode.PathExcluded, fmt.Sprintf("path matches security.path_excludes pattern %q", pat))
		return
	}
	if decided && cls.docType == record.DocBinaryIgnored {
		s.skip(j, known, present, errcode.BinarySkipped, fmt.Sprintf("binary file type (%s)", path.Ext(name)))
		return
	}
	if decided && (s.tooLarge(j, known, present) || s.shortcut(j, known, present)) {
		return
	}
	if !decided && s.storedClass(j, known, present) {
		return
	}

	f, _, err := rootfs.OpenRegular(j.abs) // never blocks on a FIFO swapped in since the walk
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			j.vanished, j.doc = true, nil
			return
		}
		s.fail(j, d.SizeBytes, d.MtimeNs, err)
		return
	}
	defer f.Close()
	if cap(*buf) < SniffLen {
		*buf = make([]byte, 0, 64<<10)
	}
	head := (*buf)[:SniffLen]
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		s.fail(j, d.SizeBytes, d.MtimeNs, err)
		return
	}
	head = head[:n]
	j.bytesRead = int64(n)

	if !decided || textLike(cls.docType) {
		cls = classify(name, head)
		d.DocType, d.Lang = cls.docType, cls.lang
	}
	if cls.docType == record.DocBinaryIgnored {
		s.skip(j, known, present, errcode.BinarySkipped, "content is binary")
		return
	}
	// The content may have changed the doc type, and so the cap.
	if s.tooLarge(j, known, present) || !decided && s.shortcut(j, known, present) {
		return
	}

	if !textLike(cls.docType) {
		// Media and archives: hash as a stream, never held in memory.
		h := sha256.New()
		h.Write(head)
		rest, err := io.CopyBuffer(h, f, (*buf)[:cap(*buf)])
		j.bytesRead += rest
		if err != nil {
			s.fail(j, d.SizeBytes, d.MtimeNs, err)
			return
		}
		d.SizeBytes = int64(n) + rest
		d.ContentHash = "sha256:" + hex.EncodeToString(h.Sum(nil))
		s.finish(j, known, present)
		return
	}

	// Text: read it all (bounded) to hash it and scan it for secrets.
	limit := s.capFor(cls.docType)
	if limit <= 0 || limit > MaxTextBytes {
		limit = MaxTextBytes
	}
	content, err := readAll(f, *buf, n, limit)
	if cap(content) <= maxKeptBuf {
		*buf = content[:0]
	}
	j.bytesRead = int64(len(content))
	if err != nil {
		s.fail(j, d.SizeBytes, d.MtimeNs, err)
		return
	}
	if int64(len(content)) > limit {
		d.SizeBytes = int64(len(content))
		s.skip(j, known, present, errcode.FileTooLarge, fmt.Sprintf("file grew past the %s limit for %s while being read", humanBytes(limit), cls.docType))
		return
	}
	d.SizeBytes = int64(len(content))
	sum := sha256.Sum256(content)
	d.ContentHash = "sha256:" + hex.EncodeToString(sum[:])
	if idx, ok := s.engine.SecretMatch(content); ok {
		s.skip(j, known, present, errcode.SecretExcluded, "content matches "+s.engine.SecretRule(idx))
		return
	}
	s.finish(j, known, present)
}

// storedClass settles a file whose name does not decide its type without
// opening it, when its size and mtime are the stored ones (so its content
// is taken as unchanged, as shortcut does) and the stored classification is
// known: the steps that follow sniffing the content are taken with the
// stored type, and reports true when they settle the record. Otherwise it
// leaves the document as it found it. A record of a file that could not be
// read (an error, no content hash) holds a placeholder type, not a
// classification.
func (s *scanner) storedClass(j *job, k Known, present bool) bool {
	d := j.doc
	if s.opt.Rehash || !present || k.DocType == "" || k.SizeBytes != d.SizeBytes || k.MtimeNs != d.MtimeNs {
		return false
	}
	if k.Status == record.StatusError && k.ContentHash == "" {
		return false
	}
	docType, lang := d.DocType, d.Lang
	d.DocType, d.Lang = k.DocType, k.Lang
	if d.DocType == record.DocBinaryIgnored {
		s.skip(j, k, present, errcode.BinarySkipped, "content is binary")
		return true
	}
	if s.tooLarge(j, k, present) || s.shortcut(j, k, present) {
		return true
	}
	d.DocType, d.Lang = docType, lang
	return false
}

// readAll reads the rest of f after the n bytes already in buf[:n], up to
// limit+1 bytes in all (one more than allowed reveals a file that grew).
func readAll(f *os.File, buf []byte, n int, limit int64) ([]byte, error) {
	buf = buf[:n]
	for {
		if int64(len(buf)) > limit {
			return buf, nil
		}
		if len(buf) == cap(buf) {
			grow := cap(buf)
			if grow < 64<<10 {
				grow = 64 << 10
			}
			if int64(cap(buf)+grow) > limit+1 {
				grow = int(limit + 1 - int64(cap(buf)))
				if grow <= 0 {
					grow = 1
				}
			}
			nb := make([]byte, len(buf), cap(buf)+grow)
			copy(nb, buf)
			buf = nb
		}
		m, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func (s *scanner) capFor(docType string) int64 {
	if s.opt.SizeCaps == nil {
		return 0
	}
	return s.opt.SizeCaps(docType)
}

// tooLarge skips the file when its size exceeds its doc type's cap.
func (s *scanner) tooLarge(j *job, known Known, present bool) bool {
	d := j.doc
	limit := s.capFor(d.DocType)
	if limit <= 0 && textLike(d.DocType) {
		limit = MaxTextBytes
	}
	if limit <= 0 || d.SizeBytes <= limit {
		return false
	}
	s.skip(j, known, present, errcode.FileTooLarge,
		fmt.Sprintf("%s exceeds the %s cap for %s", humanBytes(d.SizeBytes), humanBytes(limit), d.DocType))
	return true
}

// shortcut reuses the stored verdict, without reading the file, when size
// and mtime are what the state dir holds and the verdict came from content
// that is therefore taken as unchanged.
func (s *scanner) shortcut(j *job, k Known, present bool) bool {
	d := j.doc
	if s.opt.Rehash || !present || k.SizeBytes != d.SizeBytes || k.MtimeNs != d.MtimeNs {
		return false
	}
	switch {
	case (k.Status == record.StatusOK || deferred(k)) && k.ContentHash != "":
		d.Status = record.StatusOK
	case k.Status == record.StatusSkipped && (k.Code == string(errcode.BinarySkipped) || k.Code == string(errcode.SecretExcluded)),
		contentFailure(k):
		d.Status, d.Code, d.Reason = k.Status, k.Code, k.Reason
		if k.Code == string(errcode.BinarySkipped) {
			d.DocType, d.Lang = record.DocBinaryIgnored, ""
		}
	default:
		return false
	}
	d.ContentHash = k.ContentHash
	d.Change = record.ChangeUnchanged
	return true
}

// contentFailure reports whether a stored document failed on its bytes
// themselves: they were read and hashed, and the extractor (EXTRACT_FAILED:
// a damaged archive) or the local OCR engine (OCR_FAILED) rejected them.
// The same bytes fail the same way, so an unchanged file is not extracted
// again on every run; a new extractor or OCR engine is a policy change,
// which re-checks everything (so is installing a missing OCR tool: no
// tesseract means no engine, no pdftoppm is part of the engine's model).
// Provider failures (rate limits, outages) have their own codes and are
// retried.
func contentFailure(k Known) bool {
	return k.Status == record.StatusError && k.ContentHash != "" &&
		(k.Code == string(errcode.ExtractFailed) || k.Code == string(errcode.OCRFailed))
}

// skip marks the document skipped with code and reason.
func (s *scanner) skip(j *job, k Known, present bool, code errcode.Code, reason string) {
	d := j.doc
	d.Status, d.Code, d.Reason = record.StatusSkipped, string(code), reason
	if code == errcode.BinarySkipped {
		d.DocType, d.Lang = record.DocBinaryIgnored, ""
	}
	s.finish(j, k, present)
}

// fail records a file that could not be read.
func (s *scanner) fail(j *job, size, mtimeNs int64, err error) {
	if j.doc == nil {
		j.doc = &record.Document{}
		d := j.doc
		*d = record.NewDocument()
		d.Root, d.RelPath, d.SourceType, d.DocType = s.root, j.rel, record.SourceFile, record.DocText
		if c, ok := classifyName(path.Base(j.rel)); ok {
			d.DocType, d.Lang = c.docType, c.lang
		}
		d.SizeBytes, d.MtimeNs, d.MtimeUnix = size, mtimeNs, mtimeNs/1e9
	}
	d := j.doc
	d.Status, d.Code = record.StatusError, string(errcode.ExtractFailed)
	d.Reason = "cannot read file: " + unwrapPathError(err).Error()
	d.ContentHash = ""
	k, present := s.knownMap()[j.rel]
	j.known = present && !k.Deleted
	s.finish(j, k, j.known)
}

// finish sets Status (ok unless already set) and Change.
func (s *scanner) finish(j *job, k Known, present bool) {
	d := j.doc
	if d.Status == "" {
		d.Status = record.StatusOK
	}
	d.Change = change(d, k, present)
}

// change compares a processed document with the known one.
func change(d *record.Document, k Known, present bool) string {
	switch {
	case !present:
		return record.ChangeNew
	case deferred(k) && d.Status == record.StatusOK:
		// The extract stage deferred it (no provider yet); only its bytes matter here.
	case d.Status != k.Status, k.Code != "" && d.Code != k.Code:
		return record.ChangeModified
	}
	switch {
	case d.ContentHash != "" && k.ContentHash != "":
		if d.ContentHash == k.ContentHash {
			return record.ChangeUnchanged
		}
		return record.ChangeModified
	case d.ContentHash == "" && k.ContentHash == "" && d.SizeBytes == k.SizeBytes && d.MtimeNs == k.MtimeNs:
		return record.ChangeUnchanged
	}
	return record.ChangeModified
}

// deferred reports whether a stored document was skipped by the extract
// stage because its type cannot be processed yet (no provider, or its
// ingest mode is off). Scan sees such a file as ok; a change of provider or
// mode is a policy change that triggers a full re-check anyway.
func deferred(k Known) bool {
	return k.Status == record.StatusSkipped &&
		(k.Code == string(errcode.AwaitingProvider) || k.Code == string(errcode.DocTypeUnsupported))
}

// humanBytes formats a byte count for reasons: "512 B", "3.1 MB".
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
