package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/answer"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	ucli "github.com/urfave/cli/v3"
)

func askCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "ask",
		Usage:     "answer a question from the index with citations (same engine as the MCP tool)",
		UsageText: `dir2mcp ask [--k N] [--search-only] [--index auto|text|code|both] "QUESTION"`,
		Flags: []ucli.Flag{
			&ucli.IntFlag{Name: "k", Usage: "number of hits to draw on (1-50; default rag.k_default)"},
			&ucli.BoolFlag{Name: "search-only", Usage: "print the hits without an answer"},
			&ucli.StringFlag{Name: "index", Value: "auto", Usage: "auto | text | code | both"},
			&ucli.StringFlag{Name: "path-prefix", Usage: "only files under this rel_path prefix"},
			&ucli.StringFlag{Name: "glob", Usage: "only files matching this glob"},
		},
		Action: runAsk,
	}
}

func runAsk(ctx context.Context, cmd *ucli.Command) error {
	q := strings.TrimSpace(strings.Join(cmd.Args().Slice(), " "))
	if q == "" {
		return errcode.FieldError(errcode.MissingField, "question", `missing question: dir2mcp ask "QUESTION"`)
	}
	e, st, err := setupReader(ctx, cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	embs, err := embedders.Open(e.cfg)
	if err != nil {
		return err
	}
	engine := retrieve.Open(st, e.dir, e.cfg, embs, 0)
	defer engine.Close()
	engine.WaitLoaded()
	engine.Complete = func() bool {
		c, err := e.dir.ReadCorpus()
		return err == nil && !c.Indexing.Running
	}
	mode := answer.ModeAnswer
	if cmd.Bool("search-only") {
		mode = answer.ModeSearchOnly
	}
	asker := &answer.Asker{Engine: engine, MaxContextChars: e.cfg.RAG.MaxContextChars, SystemPrompt: e.cfg.RAG.SystemPrompt}
	if mode == answer.ModeAnswer {
		p, err := e.providers()
		if err != nil {
			return err
		}
		asker.Chat, asker.ChatModel = p.Chat, p.ChatModel
	}
	k := int(cmd.Int("k"))
	if !cmd.IsSet("k") {
		k = e.cfg.RAG.KDefault
	}
	res, err := asker.Ask(ctx, retrieve.Request{Query: q, K: k, Index: cmd.String("index"),
		PathPrefix: cmd.String("path-prefix"), FileGlob: cmd.String("glob")}, mode)
	if err != nil {
		return err
	}
	if e.jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	w := e.stdout
	if mode == answer.ModeAnswer {
		fmt.Fprintln(w, res.Answer)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Sources (%d):\n", len(res.Hits))
	for i, h := range res.Hits {
		fmt.Fprintf(w, "  %d. %s  score=%.4f\n", i+1, retrieve.Cite(h.RelPath, h.Span), h.Score)
	}
	if !res.IndexingComplete {
		fmt.Fprintln(w, "(indexing is still running; results may be incomplete)")
	}
	return nil
}
