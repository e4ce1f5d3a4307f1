// Package config holds the .dir2mcp.yaml schema (SPEC §16), its defaults,
// and the resolution of flags > env > file > defaults into one effective
// Config.
package config

// Config is the effective configuration. Field yaml tags are the key names
// in .dir2mcp.yaml; nested structs are nested mappings.
type Config struct {
	Version  int            `yaml:"version"`
	Mistral  MistralConfig  `yaml:"mistral"`
	OpenAI   OpenAIConfig   `yaml:"openai"`
	Ollama   OllamaConfig   `yaml:"ollama"`
	Embed    EmbedConfig    `yaml:"embed"`
	Search   SearchConfig   `yaml:"search"`
	RAG      RAGConfig      `yaml:"rag"`
	Ingest   IngestConfig   `yaml:"ingest"`
	Chunking ChunkingConfig `yaml:"chunking"`
	STT      STTConfig      `yaml:"stt"`
	X402     X402Config     `yaml:"x402"`
	Server   ServerConfig   `yaml:"server"`
	Secrets  SecretsConfig  `yaml:"secrets"`
	Security SecurityConfig `yaml:"security"`
	Audit    AuditConfig    `yaml:"audit"`
}

// Secret is a credential value with where it came from. Its plaintext is
// never marshalled or formatted: YAML/JSON output and %v show only the
// source (see Describe). Load fills Value and Source.
type Secret struct {
	Value string `yaml:"-" json:"-"`
	// Source is env:NAME | file:PATH | config | session | "" (no source).
	// env:NAME is kept when NAME is unset, so Value may be empty; use IsSet.
	// "config" is a plaintext value written in the config file.
	Source string `yaml:"-" json:"-"`
	// Ref is the literal reference written in the file, e.g. "${MISTRAL_API_KEY}".
	Ref string `yaml:"-" json:"-"`
}

// MistralConfig configures the Mistral provider (SPEC §8.1).
type MistralConfig struct {
	// The secret tag names the canonical env var that overrides the key
	// (SPEC §16.1.1).
	APIKey         Secret `yaml:"api_key" secret:"MISTRAL_API_KEY"`
	BaseURL        string `yaml:"base_url"`
	ChatModel      string `yaml:"chat_model"`
	EmbedTextModel string `yaml:"embed_text_model"`
	EmbedCodeModel string `yaml:"embed_code_model"`
	OCRModel       string `yaml:"ocr_model"`
}

// OpenAIConfig configures an OpenAI or OpenAI-compatible server (vLLM, LM
// Studio, llama.cpp, LiteLLM, ...), used by embed.provider openai and
// rag.chat_provider openai (extension to SPEC §16).
type OpenAIConfig struct {
	// APIKey is optional: local OpenAI-compatible servers often need none.
	APIKey         Secret `yaml:"api_key" secret:"OPENAI_API_KEY"`
	BaseURL        string `yaml:"base_url"`
	ChatModel      string `yaml:"chat_model"`
	EmbedTextModel string `yaml:"embed_text_model"`
	EmbedCodeModel string `yaml:"embed_code_model"` // empty = embed_text_model
	EmbedDim       int    `yaml:"embed_dim"`        // 0 = the model's default
}

// OllamaConfig configures a local Ollama server, used by embed.provider
// ollama and rag.chat_provider ollama (extension to SPEC §16).
type OllamaConfig struct {
	BaseURL        string `yaml:"base_url"`
	ChatModel      string `yaml:"chat_model"`
	EmbedTextModel string `yaml:"embed_text_model"`
	EmbedCodeModel string `yaml:"embed_code_model"` // empty = embed_text_model
	EmbedDim       int    `yaml:"embed_dim"`        // 0 = the model's known dimension
}

// EmbedConfig selects the embedder (extension to SPEC §16).
type EmbedConfig struct {
	// Provider: auto | local | hash | mistral | openai | ollama.
	// auto = mistral when a Mistral key is present, else the offline default.
	Provider    string `yaml:"provider"`
	BatchSize   int    `yaml:"batch_size"`  // inputs per embed call
	Concurrency int    `yaml:"concurrency"` // parallel embed calls; 0 = number of CPUs
}

// SearchConfig tunes hybrid retrieval (extension to SPEC §16).
type SearchConfig struct {
	// Fusion combines the channels: "cc" (convex combination of normalised
	// scores: a weak neighbour cannot outrank a clear keyword hit) or "rrf"
	// (weighted reciprocal rank fusion).
	Fusion        string  `yaml:"fusion"`
	RRFK          float64 `yaml:"rrf_k"`          // reciprocal rank fusion constant
	LexicalWeight float64 `yaml:"lexical_weight"` // BM25 channel weight in fusion
	VectorWeight  float64 `yaml:"vector_weight"`  // vector channel weight in fusion
	Candidates    int     `yaml:"candidates"`     // candidates per channel before fusion
	MaxPerFile    int     `yaml:"max_per_file"`   // cap on hits from one file (0 = no cap)
}

// RAGConfig configures ask (SPEC §9.4).
type RAGConfig struct {
	GenerateAnswer bool `yaml:"generate_answer"`
	// ChatProvider generates answers: auto | mistral | openai | ollama |
	// none. auto = mistral when a Mistral key is present, else none
	// (extractive answers quoted from the hits).
	ChatProvider     string `yaml:"chat_provider"`
	KDefault         int    `yaml:"k_default"`
	SystemPrompt     string `yaml:"system_prompt"`
	MaxContextChars  int    `yaml:"max_context_chars"`
	OversampleFactor int    `yaml:"oversample_factor"`
}

// IngestConfig configures discovery and representation generation (SPEC §7).
type IngestConfig struct {
	Gitignore      bool        `yaml:"gitignore"`
	PDF            ModeConfig  `yaml:"pdf"`    // off | ocr | auto
	Images         ModeConfig  `yaml:"images"` // off | ocr_auto | ocr_on
	Audio          AudioConfig `yaml:"audio"`
	Archives       ModeConfig  `yaml:"archives"` // off | shallow | deep
	FollowSymlinks bool        `yaml:"follow_symlinks"`
	MaxFileMB      float64     `yaml:"max_file_mb"`
	// SizeCapsMB overrides MaxFileMB per doc_type (code, text, md, data, html,
	// pdf, image, audio, archive). Entries from the file, env or flags merge
	// into the defaults (code 4, data 8); an empty (null) value clears them.
	SizeCapsMB map[string]float64 `yaml:"size_caps_mb"`
	// Ignore adds gitignore-style patterns to the default ignore list.
	Ignore []string `yaml:"ignore"`
	// Watch makes `up` re-index incrementally when files under the root
	// change (inotify), after the initial index.
	Watch bool `yaml:"watch"`
}

// ModeConfig is a section with a single mode switch.
type ModeConfig struct {
	Mode string `yaml:"mode"`
}

// AudioConfig configures audio ingestion.
type AudioConfig struct {
	Mode  string `yaml:"mode"` // off | auto | on
	Cache bool   `yaml:"cache"`
}

// ChunkingConfig configures chunk sizes (SPEC §7.5).
type ChunkingConfig struct {
	MaxChars     int              `yaml:"max_chars"`
	OverlapChars int              `yaml:"overlap_chars"`
	MinChars     int              `yaml:"min_chars"`
	Code         CodeChunking     `yaml:"code"`
	Transcript   TranscriptChunks `yaml:"transcript"`
}

// CodeChunking configures line-window chunking of code.
type CodeChunking struct {
	MaxLines     int `yaml:"max_lines"`
	OverlapLines int `yaml:"overlap_lines"`
}

// TranscriptChunks configures time-window chunking of transcripts.
type TranscriptChunks struct {
	SegmentMs int `yaml:"segment_ms"`
	OverlapMs int `yaml:"overlap_ms"`
}

// STTConfig selects the speech-to-text provider (SPEC §8.2).
type STTConfig struct {
	Provider string `yaml:"provider"` // mistral | elevenlabs
	// The secret tag names the canonical env var of the section's api_key
	// (SPEC §16.1.1).
	Mistral    STTProvider `yaml:"mistral" secret:"MISTRAL_API_KEY"`
	ElevenLabs STTProvider `yaml:"elevenlabs" secret:"ELEVENLABS_API_KEY"`
}

// STTProvider configures one STT provider.
type STTProvider struct {
	APIKey     Secret `yaml:"api_key"`
	BaseURL    string `yaml:"base_url"` // empty = the provider's default endpoint
	Model      string `yaml:"model"`
	Timestamps bool   `yaml:"timestamps"`
}

// X402Config configures payments (SPEC §18). Mode decides: off serves
// every call free, on charges the tools named in route_policy.tools_call
// (tools, prices), required charges every tools/call. Enabled (and
// route_policy.tools_call.enabled) are legacy switches: when true and mode
// is set by no layer, Load turns mode to on; they never turn payments off.
type X402Config struct {
	Enabled         bool   `yaml:"enabled"`
	Mode            string `yaml:"mode"` // off | on | required
	FacilitatorURL  string `yaml:"facilitator_url"`
	ResourceBaseURL string `yaml:"resource_base_url"`
	// FacilitatorTimeout bounds each facilitator request (verify, settle,
	// supported); a call whose payment cannot be verified in time fails
	// closed.
	FacilitatorTimeout Duration   `yaml:"facilitator_timeout"`
	RoutePolicy        X402Routes `yaml:"route_policy"`
	Bazaar             X402Bazaar `yaml:"bazaar"`
}

// X402Routes holds per-route payment policy.
type X402Routes struct {
	ToolsCall X402Price `yaml:"tools_call"`
}

// X402Price is the payment requirement for a route.
type X402Price struct {
	Enabled bool `yaml:"enabled"`
	// Price is the default per-call price in whole units of the asset
	// (USDC: dollars), e.g. "0.001".
	Price   string `yaml:"price"`
	Network string `yaml:"network"` // CAIP-2, e.g. eip155:8453
	Scheme  string `yaml:"scheme"`  // exact
	// Asset is the token contract/mint; empty = the network's USDC.
	Asset string `yaml:"asset"`
	PayTo string `yaml:"pay_to"`
	// Decimals of Asset (0 = known from the network's default asset).
	Decimals int `yaml:"decimals"`
	// Extra is the scheme's extra data for Asset, e.g. the EIP-712 domain
	// name and version of a custom EVM token (default assets fill it).
	Extra map[string]string `yaml:"extra"`
	// MaxTimeoutSeconds is how long a signed payment stays valid; it must
	// cover the tool's run time, since settlement follows the tool.
	MaxTimeoutSeconds int `yaml:"max_timeout_seconds"`
	// Tools lists the tool names charged in mode on (with the keys of
	// Prices); mode required charges every tool.
	Tools []string `yaml:"tools"`
	// Prices overrides Price per tool name.
	Prices map[string]string `yaml:"prices"`
}

// X402Bazaar configures optional discovery metadata.
type X402Bazaar struct {
	Enabled  bool              `yaml:"enabled"`
	Metadata map[string]string `yaml:"metadata"`
}

// ServerConfig configures the MCP server (SPEC §10).
type ServerConfig struct {
	Listen                   string    `yaml:"listen"`
	MCPPath                  string    `yaml:"mcp_path"`
	ProtocolVersion          string    `yaml:"protocol_version"`
	TLS                      TLSConfig `yaml:"tls"`
	Public                   bool      `yaml:"public"`
	SessionInactivityTimeout Duration  `yaml:"session_inactivity_timeout"`
	SessionMaxLifetime       Duration  `yaml:"session_max_lifetime"`
	MaxBodyBytes             int64     `yaml:"max_body_bytes"`
	RateLimit                RateLimit `yaml:"rate_limit"`
	// ToolTimeout is the deadline of one tool call or resource read;
	// ProviderToolTimeout that of the tools calling a provider
	// (transcribe, annotate, ask_audio…). A call past it is a TIMEOUT
	// result and its work is cancelled.
	ToolTimeout         Duration `yaml:"tool_timeout"`
	ProviderToolTimeout Duration `yaml:"provider_tool_timeout"`
	// Tools, when not empty, is the allowlist of tools served (flag
	// --tools): the others are hidden from tools/list and refused, for
	// every client and token.
	Tools []string `yaml:"tools"`
}

// TLSConfig configures HTTPS.
type TLSConfig struct {
	Enabled  bool   `yaml:"enabled"`
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
}

// RateLimit configures request rate limiting (requests per second and burst).
type RateLimit struct {
	RPS   float64 `yaml:"rps"` // global, per client address; 0 = off
	Burst int     `yaml:"burst"`
	// Loopback applies RPS/Burst to loopback clients (127.0.0.0/8, ::1)
	// too; by default they are never limited, so only other machines
	// (reachable with --public) are.
	Loopback       bool    `yaml:"loopback"`
	ExpensiveRPS   float64 `yaml:"expensive_rps"` // ask/transcribe tier; 0 = off
	ExpensiveBurst int     `yaml:"expensive_burst"`
}

// SecretsConfig selects where secrets are stored (SPEC §16.1.1).
type SecretsConfig struct {
	Provider string           `yaml:"provider"` // auto | keychain | file | env | session
	Keychain KeychainConfig   `yaml:"keychain"`
	File     SecretFileConfig `yaml:"file"`
}

// KeychainConfig names the OS keychain entry.
type KeychainConfig struct {
	Service string `yaml:"service"`
	Account string `yaml:"account"`
}

// SecretFileConfig is the file secret store.
type SecretFileConfig struct {
	Path string `yaml:"path"`
	Mode string `yaml:"mode"`
}

// SecurityConfig configures auth and exclusions (SPEC §17).
type SecurityConfig struct {
	Auth           AuthConfig `yaml:"auth"`
	AllowedOrigins []string   `yaml:"allowed_origins"`
	// AllowedHosts lists DNS names the HTTP Host header may carry besides
	// IP literals, localhost and this machine's hostname ("*" = any,
	// "*.example.com" = a domain); other names get 403 (DNS rebinding).
	AllowedHosts   []string `yaml:"allowed_hosts"`
	PathExcludes   []string `yaml:"path_excludes"`
	SecretPatterns []string `yaml:"secret_patterns"`
	// Redact masks credentials inside the files that are indexed and
	// served (files matching SecretPatterns are excluded whole instead).
	Redact RedactConfig `yaml:"redact"`
}

// RedactConfig configures the masking of credentials in everything served:
// index text, tool results, resources and the audit log's arguments.
type RedactConfig struct {
	Enabled     bool   `yaml:"enabled"`
	Replacement string `yaml:"replacement"` // written over each masked span
	// Patterns are regular expressions; a (?P<secret>...) group masks only
	// the value. The secret patterns are masked too.
	Patterns []string `yaml:"patterns"`
}

// AuditConfig configures the audit log of tool calls (audit.jsonl in the
// state directory).
type AuditConfig struct {
	Enabled  bool  `yaml:"enabled"`
	MaxBytes int64 `yaml:"max_bytes"` // rotate the log when it would grow past this
	Keep     int   `yaml:"keep"`      // rotated files kept (audit.jsonl.1 … .N)
}

// AuthConfig configures bearer auth.
type AuthConfig struct {
	Mode      string `yaml:"mode"` // auto | none | file
	TokenFile string `yaml:"token_file"`
	TokenEnv  string `yaml:"token_env"`
}
