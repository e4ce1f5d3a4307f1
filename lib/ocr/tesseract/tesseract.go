// Package tesseract is the offline OCR engine: it runs the tesseract
// binary (and pdftoppm from poppler-utils to render PDF pages) when they
// are installed, so scanned PDFs and screenshots are searchable with no
// API key. Both tools are optional and detected at run time; without them
// New fails with a message saying what to install.
package tesseract

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
)

// Options configures the engine. Zero fields take the defaults noted.
type Options struct {
	// Languages are tesseract language codes joined by "+" (default "eng").
	Languages string
	// DPI is the resolution PDF pages are rendered at (default 200).
	DPI int
	// PageTimeout bounds rendering and recognising one page (default 2 min).
	PageTimeout time.Duration
	// MaxPages bounds the pages recognised per PDF (default 500).
	MaxPages int
	// Tesseract and PDFToPPM are the binaries (default: found in PATH).
	Tesseract, PDFToPPM string
}

// Engine is an ocr.Engine over the tesseract binary.
type Engine struct {
	opt Options
	// probed is closed once `tesseract --version` has answered (version)
	// or failed (broken): a server starts without waiting for it.
	probed  chan struct{}
	version string
	broken  error
}

var _ ocr.Engine = (*Engine)(nil)

// Available reports whether the tesseract binary is installed.
func Available() bool {
	_, err := exec.LookPath("tesseract")
	return err == nil
}

// New finds the binaries and returns the engine. It fails with OCR_FAILED
// when tesseract is not installed. Whether it runs is asked in the
// background (`tesseract --version`, tens of milliseconds): Model and OCR
// wait for the answer, and when it does not run every OCR fails with
// OCR_FAILED saying so. pdftoppm is only needed for PDFs; without it OCR
// of a PDF fails with a message naming it.
func New(opt Options) (*Engine, error) {
	if opt.Languages == "" {
		opt.Languages = "eng"
	}
	if opt.DPI <= 0 {
		opt.DPI = 200
	}
	if opt.PageTimeout <= 0 {
		opt.PageTimeout = 2 * time.Minute
	}
	if opt.MaxPages <= 0 {
		opt.MaxPages = 500
	}
	if opt.Tesseract == "" {
		p, err := exec.LookPath("tesseract")
		if err != nil {
			return nil, errcode.New(errcode.OCRFailed, "tesseract is not installed (Debian/Ubuntu: apt-get install tesseract-ocr tesseract-ocr-eng poppler-utils)")
		}
		opt.Tesseract = p
	}
	if opt.PDFToPPM == "" {
		if p, err := exec.LookPath("pdftoppm"); err == nil {
			opt.PDFToPPM = p
		}
	}
	e := &Engine{opt: opt, probed: make(chan struct{})}
	go e.probe()
	return e, nil
}

// probe asks tesseract its version.
func (e *Engine) probe() {
	defer close(e.probed)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, e.opt.Tesseract, "--version").CombinedOutput()
	if err != nil {
		e.version, e.broken = "tesseract-broken", errcode.Wrap(errcode.OCRFailed, err, "tesseract does not run: %v", err)
		return
	}
	version := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	e.version = strings.ReplaceAll(version, " ", "-")
}

// Err waits for the version probe and returns why tesseract cannot be
// used (OCR_FAILED), or nil.
func (e *Engine) Err() error {
	<-e.probed
	return e.broken
}

// Provider implements ocr.Engine.
func (e *Engine) Provider() string { return "tesseract" }

// Model implements ocr.Engine: the tesseract version, languages and DPI,
// e.g. "tesseract-5.3.0/eng@200", so cached results follow upgrades.
// Without pdftoppm (PDF pages cannot be rendered) it ends in
// "/no-pdftoppm": installing pdftoppm then changes the indexing policy, so
// PDFs that failed for want of it are tried again although their bytes are
// unchanged.
func (e *Engine) Model() string {
	<-e.probed
	m := e.version + "/" + e.opt.Languages + "@" + strconv.Itoa(e.opt.DPI)
	if e.opt.PDFToPPM == "" {
		m += "/no-pdftoppm"
	}
	return m
}

// OCR implements ocr.Engine. Images are recognised as one page; PDF pages
// are rendered to grayscale PNGs with pdftoppm first.
func (e *Engine) OCR(ctx context.Context, d ocr.Document) (*ocr.Result, error) {
	if err := e.Err(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "dir2mcp-ocr-")
	if err != nil {
		return nil, errcode.Wrap(errcode.OCRFailed, err, "ocr: %v", err)
	}
	defer os.RemoveAll(dir)
	res := &ocr.Result{Provider: e.Provider(), Model: e.Model()}
	if !d.IsPDF() {
		if !strings.HasPrefix(d.MIME, "image/") {
			return nil, errcode.New(errcode.DocTypeUnsupported, "ocr: %s has media type %q, not a PDF or an image", d.Name, d.MIME)
		}
		in := filepath.Join(dir, "image"+extFor(d.MIME))
		if err := os.WriteFile(in, d.Data, 0o600); err != nil {
			return nil, errcode.Wrap(errcode.OCRFailed, err, "ocr: %v", err)
		}
		text, err := e.recognise(ctx, in, d.Name)
		if err != nil {
			return nil, err
		}
		res.Pages = []ocr.Page{{Number: 1, Markdown: text}}
		return res, nil
	}
	pages, err := e.render(ctx, dir, d)
	if err != nil {
		return nil, err
	}
	for _, p := range pages {
		text, err := e.recognise(ctx, p.file, fmt.Sprintf("%s page %d", d.Name, p.number))
		if err != nil {
			return nil, err
		}
		res.Pages = append(res.Pages, ocr.Page{Number: p.number, Markdown: text})
	}
	return res, nil
}

// recognise runs tesseract on one image and returns its text.
func (e *Engine) recognise(ctx context.Context, image, what string) (string, error) {
	out, err := e.run(ctx, e.opt.Tesseract, image, "stdout", "-l", e.opt.Languages)
	if err != nil {
		return "", errcode.Wrap(errcode.OCRFailed, err, "tesseract could not read %s: %v", what, err)
	}
	return tidy(string(out)), nil
}

type renderedPage struct {
	number int
	file   string
}

var pageSuffix = regexp.MustCompile(`-(\d+)\.png$`)

// render turns the selected PDF pages into PNG files.
func (e *Engine) render(ctx context.Context, dir string, d ocr.Document) ([]renderedPage, error) {
	if e.opt.PDFToPPM == "" {
		return nil, errcode.New(errcode.OCRFailed, "ocr: pdftoppm is needed to OCR PDF pages (Debian/Ubuntu: apt-get install poppler-utils)")
	}
	in := filepath.Join(dir, "doc.pdf")
	if err := os.WriteFile(in, d.Data, 0o600); err != nil {
		return nil, errcode.Wrap(errcode.OCRFailed, err, "ocr: %v", err)
	}
	args := []string{"-r", strconv.Itoa(e.opt.DPI), "-gray", "-png"}
	var out []renderedPage
	if len(d.Pages) > 0 {
		for _, n := range d.Pages {
			if len(out) >= e.opt.MaxPages {
				break
			}
			base := filepath.Join(dir, "p"+strconv.Itoa(n))
			a := append(append([]string{}, args...), "-f", strconv.Itoa(n), "-l", strconv.Itoa(n), "-singlefile", in, base)
			if _, err := e.run(ctx, e.opt.PDFToPPM, a...); err != nil {
				return nil, errcode.Wrap(errcode.OCRFailed, err, "pdftoppm could not render page %d of %s: %v", n, d.Name, err)
			}
			out = append(out, renderedPage{n, base + ".png"})
		}
		return out, nil
	}
	a := append(args, "-l", strconv.Itoa(e.opt.MaxPages), in, filepath.Join(dir, "p"))
	if _, err := e.run(ctx, e.opt.PDFToPPM, a...); err != nil {
		return nil, errcode.Wrap(errcode.OCRFailed, err, "pdftoppm could not render %s: %v", d.Name, err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "p-*.png"))
	for _, f := range files {
		if m := pageSuffix.FindStringSubmatch(f); m != nil {
			n, _ := strconv.Atoi(m[1])
			out = append(out, renderedPage{n, f})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].number < out[j].number })
	if len(out) == 0 {
		return nil, errcode.New(errcode.OCRFailed, "pdftoppm rendered no pages of %s", d.Name)
	}
	return out, nil
}

// run executes a tool with the page timeout; the error carries the end of
// its stderr.
func (e *Engine) run(ctx context.Context, bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, e.opt.PageTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		msg := strings.Join(strings.Fields(stderr.String()), " ") // one line for logs and events
		if len(msg) > 300 {
			msg = msg[len(msg)-300:]
		}
		return nil, fmt.Errorf("%s: %v: %s", filepath.Base(bin), err, msg)
	}
	return stdout.Bytes(), nil
}

func extFor(mime string) string {
	switch mime {
	case "image/jpeg":
		return ".jpg"
	case "image/tiff":
		return ".tif"
	}
	return "." + strings.TrimPrefix(mime, "image/")
}

// tidy trims lines and collapses runs of blank lines.
func tidy(s string) string {
	var out []string
	blank := false
	for _, l := range strings.Split(strings.ReplaceAll(s, "\f", "\n"), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
