package answer

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/chat"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

// NotInContext is what a generated answer says when the hits do not answer
// the question; the instructions ask the model for these words.
const NotInContext = "The indexed content does not contain the answer."

// instructions follow the configured system prompt.
const instructions = `Answer the question using only the sources below. Each source starts with its citation in brackets.
After every statement, cite the source it comes from by repeating that source's citation exactly, for example [docs/setup.md:L10-L24], [report.pdf#p=3] or [meeting.mp3@t=01:05-01:35].
Never cite anything that is not a source below and never invent facts.
If the sources do not contain the answer, reply: "` + NotInContext + `" and say briefly what they do cover.`

// source is one hit given to the model.
type source struct {
	hit  int
	cite string
	text string
}

// generate asks the chat model to answer from the hits and returns the
// answer with invented citations removed, and the citations that point at
// hits.
func (a *Asker) generate(ctx context.Context, question string, hits []retrieve.Hit) (string, []Citation, error) {
	srcs, err := a.sources(ctx, hits)
	if err != nil {
		return "", nil, err
	}
	var user strings.Builder
	fmt.Fprintf(&user, "Question: %s\n\nSources:\n", question)
	for _, s := range srcs {
		fmt.Fprintf(&user, "\n%s\n%s\n", s.cite, s.text)
	}
	sys := strings.TrimSpace(a.SystemPrompt)
	if sys != "" {
		sys += "\n\n"
	}
	temp := 0.2
	resp, err := a.Chat.Chat(ctx, chat.Request{Model: a.ChatModel, Temperature: &temp, Messages: []chat.Message{
		{Role: "system", Content: sys + instructions},
		{Role: "user", Content: user.String()},
	}})
	if err != nil {
		return "", nil, err
	}
	ans, cites := checkCitations(strings.TrimSpace(resp.Text), hits)
	if ans == "" {
		ans = NotInContext
	}
	return ans, cites, nil
}

// sources turns hits into the model's context: each hit's whole chunk
// (its snippet when the chunk is gone), in rank order, until
// MaxContextChars is spent; the last one may be cut.
func (a *Asker) sources(ctx context.Context, hits []retrieve.Hit) ([]source, error) {
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	metas, err := a.Engine.Store.ChunkMetas(ctx, ids)
	if err != nil {
		return nil, err
	}
	budget := a.MaxContextChars
	if budget <= 0 {
		budget = 20000
	}
	var out []source
	for i, h := range hits {
		text := h.Snippet
		if m, ok := metas[h.ChunkID]; ok && m.Text != "" {
			text = m.Text
		}
		cite := retrieve.Cite(h.RelPath, h.Span)
		room := budget - len(cite) - 2
		if room <= 0 {
			break
		}
		if len(text) > room {
			cut := room
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut]
		}
		budget -= len(cite) + len(text) + 2
		out = append(out, source{hit: i, cite: cite, text: strings.TrimSpace(text)})
	}
	return out, nil
}

// checkCitations keeps the bracketed citations of ans that point at a hit
// (exactly, or at a part of it: lines inside its lines, its page, a time
// range inside its range) and removes the ones that do not, so every
// citation a reader sees is real. A citation that renders a hit exactly
// carries the hit's span. It returns the citations in order of
// first appearance.
func checkCitations(ans string, hits []retrieve.Hit) (string, []Citation) {
	cites := []Citation{}
	seen := map[string]bool{}
	out := bracketed().ReplaceAllStringFunc(ans, func(m string) string {
		path, sp, ok := parseCite(m)
		if !ok {
			return m // not a citation: ordinary bracketed text
		}
		for _, h := range hits {
			if m == retrieve.Cite(h.RelPath, h.Span) {
				sp = h.Span // the hit itself, at full precision
			}
			if h.RelPath == path && within(sp, h.Span) {
				if !seen[m] {
					seen[m] = true
					cites = append(cites, Citation{ChunkID: h.ChunkID, RelPath: path, Span: sp})
				}
				return m
			}
		}
		return ""
	})
	out = spaceBeforePunct.ReplaceAllString(out, "$1")
	out = spaceRuns.ReplaceAllString(out, "$1 ")
	return strings.TrimSpace(out), cites
}

// Tidying after removed citations.
var (
	spaceBeforePunct = regexp.MustCompile(`[ \t]+([.,;:!?])`)
	spaceRuns        = regexp.MustCompile(`(\S)[ \t]{2,}`)
)
