// Package chat defines the Chatter interface that chat models implement
// (Mistral, OpenAI-compatible servers, Ollama), for written answers and
// annotations. The HTTP wire format lives with the providers (lib/provider).
package chat

import "context"

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system | user | assistant
	Content string `json:"content"`
}

// Request asks a chat model for one completion.
type Request struct {
	Model       string
	Messages    []Message
	Temperature *float64 // nil = the provider's default
	MaxTokens   int      // 0 = the provider's default
}

// Response is a completion.
type Response struct {
	Text             string
	Model            string
	FinishReason     string
	PromptTokens     int
	CompletionTokens int
}

// Chatter generates chat completions. Implementations must be safe for
// concurrent use.
type Chatter interface {
	Chat(ctx context.Context, req Request) (*Response, error)
}
