// Package answer implements ask (SPEC §9.4): retrieve hits for a question
// and answer from them with citations. With a chat model the answer is
// generated from the hits (the system prompt, the question and the hits'
// text with their citations, within rag.max_context_chars), and only
// citations that point at a hit are kept. Without one the answer is
// extractive: the sentences and code lines of the hits that best cover the
// question, each followed by its citation, quoted verbatim.
package answer

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/chat"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

// Modes of ask.
const (
	ModeAnswer     = "answer"
	ModeSearchOnly = "search_only"
)

// Modes lists the modes of ask, the default first.
var Modes = []string{ModeAnswer, ModeSearchOnly}

// Kinds of answer.
const (
	KindGenerated  = "generated"
	KindExtractive = "extractive"
	KindNone       = "none"
)

// Citation points an answer at a hit.
type Citation struct {
	ChunkID int64       `json:"chunk_id"`
	RelPath string      `json:"rel_path"`
	Span    record.Span `json:"span"`
}

// Result is ask's structured output (SPEC §15.3).
type Result struct {
	Question         string         `json:"question"`
	Answer           string         `json:"answer,omitempty"`
	AnswerKind       string         `json:"answer_kind"`
	Citations        []Citation     `json:"citations"`
	Hits             []retrieve.Hit `json:"hits"`
	IndexingComplete bool           `json:"indexing_complete"`
}

// Asker answers questions over a search engine.
type Asker struct {
	Engine *retrieve.Engine
	// MaxContextChars bounds the text an answer draws on (rag.max_context_chars).
	MaxContextChars int
	// Chat generates answers; nil means extractive answers.
	Chat chat.Chatter
	// ChatModel is the model Chat is asked for.
	ChatModel string
	// SystemPrompt opens every generation (rag.system_prompt).
	SystemPrompt string
	// Progress, if set, hears when retrieval is done and generation starts
	// (done in 0..1).
	Progress func(done float64, msg string)
}

// Ask answers req.Query (the question). Mode search_only returns hits only.
func (a *Asker) Ask(ctx context.Context, req retrieve.Request, mode string) (Result, error) {
	res, err := a.Engine.Search(ctx, req)
	if err != nil {
		return Result{}, err
	}
	if mode == ModeSearchOnly {
		return Result{Question: req.Query, Hits: res.Hits, Citations: []Citation{}, IndexingComplete: res.IndexingComplete, AnswerKind: KindNone}, nil
	}
	return a.Answer(ctx, req.Query, res.Hits, res.IndexingComplete)
}

// Answer answers question from hits: generated with the chat model when
// there is one (quoting instead if it fails), else extractive.
func (a *Asker) Answer(ctx context.Context, question string, hits []retrieve.Hit, complete bool) (Result, error) {
	out := Result{Question: question, Hits: hits, Citations: []Citation{}, IndexingComplete: complete, AnswerKind: KindExtractive}
	if out.Hits == nil {
		out.Hits = []retrieve.Hit{}
	}
	if a.Chat != nil && len(hits) > 0 {
		if a.Progress != nil {
			a.Progress(0.3, fmt.Sprintf("%d passages retrieved; generating the answer with %s", len(hits), a.ChatModel))
		}
		ans, cites, err := a.generate(ctx, question, hits)
		if err == nil {
			out.AnswerKind, out.Answer, out.Citations = KindGenerated, ans, cites
			return out, nil
		}
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		ans, out.Citations = extractive(question, hits, a.maxChars())
		_, quotes, _ := strings.Cut(ans, "\n")
		e := errcode.As(err)
		out.Answer = fmt.Sprintf("From the indexed files (quoted: the chat model could not answer: %s: %s):\n%s", e.Code, e.Message, quotes)
		return out, nil
	}
	out.Answer, out.Citations = extractive(question, hits, a.maxChars())
	return out, nil
}

func (a *Asker) maxChars() int {
	if a.MaxContextChars > 0 {
		return min(a.MaxContextChars, 4000)
	}
	return 4000
}

// piece is a candidate passage of the answer.
type piece struct {
	hit   int // index in hits
	text  string
	code  bool
	span  record.Span
	score float64
}

// maxPieces bounds the passages quoted in an extractive answer.
const maxPieces = 5

// extractive builds an answer from the hits' snippets: every sentence (text)
// or snippet (code) is scored by the distinct question terms it covers,
// weighted by its hit's rank; the best are quoted with their citations.
func extractive(question string, hits []retrieve.Hit, budget int) (string, []Citation) {
	if len(hits) == 0 {
		return "The indexed content has nothing that matches this question.", []Citation{}
	}
	terms := lexical.NewTermSet(lexical.Terms(question))
	var cands []piece
	for i, h := range hits {
		rankW := 1.0 / float64(i+1)
		if h.DocType == record.DocCode || h.Span.Kind != record.SpanLines {
			if cov := len(terms.Covered(h.Snippet)); cov > 0 {
				cands = append(cands, piece{hit: i, text: h.Snippet, code: h.DocType == record.DocCode, span: h.Span,
					score: (float64(cov) + 0.5) * rankW})
			}
			continue
		}
		for _, s := range sentences(h) {
			cov := len(terms.Covered(s.text))
			if cov == 0 {
				continue
			}
			s.hit = i
			s.score = (float64(cov) + 0.5) * rankW
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		// No passage shares a word with the question (a purely semantic
		// match): quote the best hit as it is.
		h := hits[0]
		cands = append(cands, piece{hit: 0, text: h.Snippet, code: h.DocType == record.DocCode, span: h.Span})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	var chosen []piece
	used := 0
	for _, c := range cands {
		if len(chosen) == maxPieces || used+len(c.text) > budget && len(chosen) > 0 {
			break
		}
		chosen = append(chosen, c)
		used += len(c.text)
	}
	// Present in hit order, then position, so the answer reads naturally.
	sort.SliceStable(chosen, func(i, j int) bool {
		if chosen[i].hit != chosen[j].hit {
			return chosen[i].hit < chosen[j].hit
		}
		return chosen[i].span.Start() < chosen[j].span.Start()
	})
	var b strings.Builder
	b.WriteString("From the indexed files (quoted; no chat model is configured, so this answer is extractive):\n")
	cites := []Citation{}
	for _, c := range chosen {
		h := hits[c.hit]
		cite := retrieve.Cite(h.RelPath, c.span)
		if c.code {
			fmt.Fprintf(&b, "\n%s\n```\n%s\n```\n", cite, strings.TrimRight(c.text, "\n"))
		} else {
			fmt.Fprintf(&b, "\n- %s %s\n", strings.Join(strings.Fields(c.text), " "), cite)
		}
		cites = append(cites, Citation{ChunkID: h.ChunkID, RelPath: h.RelPath, Span: c.span})
	}
	return strings.TrimRight(b.String(), "\n"), cites
}

// sentences splits a hit's text snippet into sentences with their line
// spans (Hit.SnippetSpan). A sentence ends at ". ", "? ", "! ", a blank
// line, or before a heading or list item.
func sentences(h retrieve.Hit) []piece {
	var out []piece
	snippet := h.Snippet
	line, startLine := 0, 0 // snippet lines
	var cur strings.Builder
	flush := func(end int) {
		if t := strings.TrimSpace(cur.String()); len([]rune(t)) >= 12 {
			out = append(out, piece{text: t, span: h.SnippetSpan(startLine, end)})
		}
		cur.Reset()
	}
	for i, r := range snippet {
		if r == '\n' {
			rest := snippet[i+1:]
			if strings.HasPrefix(rest, "\n") || strings.HasPrefix(rest, "#") || strings.HasPrefix(rest, "- ") || strings.HasPrefix(rest, "* ") {
				flush(line)
			} else if cur.Len() > 0 {
				cur.WriteByte(' ')
			}
			line++
			continue
		}
		if cur.Len() == 0 {
			if r == ' ' || r == '\t' {
				continue
			}
			startLine = line
		}
		cur.WriteRune(r)
		if (r == '.' || r == '?' || r == '!') && (i+1 == len(snippet) || snippet[i+1] == ' ' || snippet[i+1] == '\n') {
			flush(line)
		}
	}
	flush(line)
	return out
}
