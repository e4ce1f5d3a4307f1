package cli

import (
	"os"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressBar shows indexing progress on a terminal: embedded chunks out of
// the chunks known so far, with the SPEC §3.1 counters as its description.
type progressBar struct {
	bar *progressbar.ProgressBar
}

// newProgressBar returns a bar when stderr is a terminal and output is
// human and not quiet; otherwise nil (progress lines are printed instead).
func newProgressBar(e *env) *progressBar {
	if e.jsonOut || e.cmd.Bool("quiet") || !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	bar := progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription("indexing"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(false),
	)
	return &progressBar{bar: bar}
}

func (p *progressBar) update(st indexer.Status) {
	if st.Totals.Chunks > 0 {
		p.bar.ChangeMax64(st.Totals.Chunks)
	}
	_ = p.bar.Set64(st.Totals.Embedded)
	p.bar.Describe(st.ProgressLine())
}

func (p *progressBar) finish() { _ = p.bar.Finish() }
