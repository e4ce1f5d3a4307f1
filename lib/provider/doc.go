// Package provider is the HTTP core shared by dir2mcp's model provider
// clients (lib/provider/mistral, elevenlabs, openai, ollama): a base URL, an
// API key that never reaches a log, per-attempt timeouts, a bounded number
// of requests in flight, retries on 429/5xx that honour Retry-After with
// jittered exponential backoff inside a total time budget, size caps on
// requests and responses, and typed errors (SPEC §14.5) whose Retryable flag
// says whether trying again later may succeed.
//
// It also holds the wire formats several providers share: OpenAI-style
// embeddings and chat completions (Mistral and OpenAI-compatible servers
// speak the same shapes), and the batching, ordering and L2 normalisation
// every embedding client needs.
package provider
