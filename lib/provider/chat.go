package provider

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/chat"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// chatCompletionsBody is the OpenAI-style POST /v1/chat/completions body,
// which Mistral accepts too (client-python chatcompletionrequest.py: model,
// messages, temperature, max_tokens, stream).
type chatCompletionsBody struct {
	Model       string         `json:"model"`
	Messages    []chat.Message `json:"messages"`
	Temperature *float64       `json:"temperature,omitempty"`
	MaxTokens   int            `json:"max_tokens,omitempty"`
	Stream      bool           `json:"stream"`
}

type chatCompletionsReply struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// PostChatCompletions sends an OpenAI-style chat completion request to path
// and returns the first choice. The message content may be a string or,
// as Mistral's newer models send it, a list of {type: "text", text} chunks.
func (c *Client) PostChatCompletions(ctx context.Context, path string, failCode errcode.Code, in chat.Request) (*chat.Response, error) {
	req := Request{Path: path, Op: "chat", FailCode: failCode}
	body := chatCompletionsBody{Model: in.Model, Messages: in.Messages, Temperature: in.Temperature, MaxTokens: in.MaxTokens}
	var out chatCompletionsReply
	if err := c.PostJSON(ctx, req, body, &out); err != nil {
		return nil, err
	}
	if len(out.Choices) == 0 {
		return nil, c.Malformed(req, "no choices")
	}
	ch := out.Choices[0]
	text, ok := contentText(ch.Message.Content)
	if !ok {
		return nil, c.Malformed(req, "message content is neither a string nor a list of text chunks")
	}
	return &chat.Response{
		Text: text, Model: out.Model, FinishReason: ch.FinishReason,
		PromptTokens: out.Usage.PromptTokens, CompletionTokens: out.Usage.CompletionTokens,
	}, nil
}

func contentText(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), true
}
