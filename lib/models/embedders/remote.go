package embedders

import (
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/provider"
	"github.com/dir2mcp/dir2mcp/lib/provider/mistral"
	"github.com/dir2mcp/dir2mcp/lib/provider/ollama"
	"github.com/dir2mcp/dir2mcp/lib/provider/openai"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// openRemote builds the embedders of a remote provider: one per index
// kind, sharing one client, so the text and code indexes may use different
// models (Mistral: mistral-embed for text, codestral-embed for code). Each
// embedder's ID is provider/model/dimension: changing any of them makes
// the indexer re-embed that index from scratch.
func openRemote(cfg *config.Config, p string) (map[string]embed.Embedder, error) {
	var textModel, codeModel string
	var dim int
	var mk func(model string, dim int) (*provider.Embedder, error)
	switch p {
	case "mistral":
		c, err := mistral.New(mistral.Options{BaseURL: cfg.Mistral.BaseURL, APIKey: cfg.Mistral.APIKey})
		if err != nil {
			return nil, err
		}
		textModel, codeModel, mk = cfg.Mistral.EmbedTextModel, cfg.Mistral.EmbedCodeModel, c.Embedder
	case "openai":
		c, err := openai.New(openai.Options{BaseURL: cfg.OpenAI.BaseURL, APIKey: cfg.OpenAI.APIKey})
		if err != nil {
			return nil, err
		}
		textModel, codeModel, dim, mk = cfg.OpenAI.EmbedTextModel, cfg.OpenAI.EmbedCodeModel, cfg.OpenAI.EmbedDim, c.Embedder
	case "ollama":
		c, err := ollama.New(ollama.Options{BaseURL: cfg.Ollama.BaseURL})
		if err != nil {
			return nil, err
		}
		textModel, codeModel, dim, mk = cfg.Ollama.EmbedTextModel, cfg.Ollama.EmbedCodeModel, cfg.Ollama.EmbedDim, c.Embedder
	}
	if strings.TrimSpace(codeModel) == "" {
		codeModel = textModel
	}
	text, err := mk(textModel, dim)
	if err != nil {
		return nil, err
	}
	code := text
	if codeModel != textModel {
		if code, err = mk(codeModel, dim); err != nil {
			return nil, err
		}
	}
	return map[string]embed.Embedder{record.KindText: text, record.KindCode: code}, nil
}
