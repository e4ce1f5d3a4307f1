package config

import (
	"time"

	"github.com/dir2mcp/dir2mcp/lib/exclude"
)

// Default returns the built-in configuration: the SPEC §16.2 template plus
// the extension sections (embed, search, ingest.size_caps_mb,
// ingest.ignore, server.max_body_bytes, server.rate_limit). Secrets hold
// only their references (${MISTRAL_API_KEY}); Load resolves them.
func Default() *Config {
	return &Config{
		Version: 1,
		Mistral: MistralConfig{
			APIKey:         Secret{Ref: "${MISTRAL_API_KEY}"},
			BaseURL:        "https://api.mistral.ai",
			ChatModel:      "mistral-small-2506",
			EmbedTextModel: "mistral-embed",
			EmbedCodeModel: "codestral-embed",
			OCRModel:       "mistral-ocr-latest",
		},
		OpenAI: OpenAIConfig{
			APIKey:         Secret{Ref: "${OPENAI_API_KEY}"},
			BaseURL:        "https://api.openai.com",
			EmbedTextModel: "text-embedding-3-small",
		},
		Ollama: OllamaConfig{
			BaseURL:        "http://localhost:11434",
			EmbedTextModel: "nomic-embed-text",
		},
		Embed: EmbedConfig{Provider: "auto", BatchSize: 256, Concurrency: 0},
		Search: SearchConfig{
			Fusion:        "cc",
			RRFK:          60,
			LexicalWeight: 1.0,
			VectorWeight:  1.3,
			Candidates:    100,
			MaxPerFile:    3,
		},
		RAG: RAGConfig{
			GenerateAnswer:   true,
			ChatProvider:     "auto",
			KDefault:         10,
			SystemPrompt:     "You are a retrieval-augmented assistant.\nUse citations and never invent sources.\n",
			MaxContextChars:  20000,
			OversampleFactor: 5,
		},
		Ingest: IngestConfig{
			Gitignore:      true,
			PDF:            ModeConfig{Mode: "ocr"},
			Images:         ModeConfig{Mode: "ocr_auto"},
			Audio:          AudioConfig{Mode: "auto", Cache: true},
			Archives:       ModeConfig{Mode: "deep"},
			FollowSymlinks: false,
			MaxFileMB:      20,
			SizeCapsMB:     map[string]float64{"code": 4, "data": 8},
			Ignore:         []string{},
			Watch:          true,
		},
		Chunking: ChunkingConfig{
			MaxChars:     2500,
			OverlapChars: 250,
			MinChars:     200,
			Code:         CodeChunking{MaxLines: 80, OverlapLines: 12},
			Transcript:   TranscriptChunks{SegmentMs: 30000, OverlapMs: 5000},
		},
		STT: STTConfig{
			Provider: "mistral",
			Mistral: STTProvider{
				APIKey:     Secret{Ref: "${MISTRAL_API_KEY}"},
				Model:      "voxtral-mini-latest",
				Timestamps: true,
			},
			ElevenLabs: STTProvider{
				APIKey:     Secret{Ref: "${ELEVENLABS_API_KEY}"},
				Model:      "scribe",
				Timestamps: true,
			},
		},
		X402: X402Config{
			Enabled:            false,
			Mode:               "off",
			FacilitatorTimeout: Duration(10 * time.Second),
			RoutePolicy: X402Routes{ToolsCall: X402Price{
				Enabled:           false,
				Price:             "0.001",
				Network:           "eip155:8453",
				Scheme:            "exact",
				Extra:             map[string]string{},
				MaxTimeoutSeconds: 300,
				Tools:             []string{},
				Prices:            map[string]string{},
			}},
			Bazaar: X402Bazaar{Metadata: map[string]string{"description": ""}},
		},
		Server: ServerConfig{
			Listen:                   "127.0.0.1:0",
			MCPPath:                  "/mcp",
			ProtocolVersion:          "2025-11-25",
			SessionInactivityTimeout: Duration(24 * time.Hour),
			SessionMaxLifetime:       0,
			MaxBodyBytes:             4 << 20,
			RateLimit:                RateLimit{RPS: 1000, Burst: 2000, ExpensiveRPS: 2, ExpensiveBurst: 5},
			ToolTimeout:              Duration(60 * time.Second),
			ProviderToolTimeout:      Duration(10 * time.Minute),
			Tools:                    []string{},
		},
		Secrets: SecretsConfig{
			Provider: "auto",
			Keychain: KeychainConfig{Service: "dir2mcp", Account: "default"},
			File:     SecretFileConfig{Path: ".dir2mcp/secret.env", Mode: "0600"},
		},
		Security: SecurityConfig{
			Auth:           AuthConfig{Mode: "auto", TokenEnv: "DIR2MCP_AUTH_TOKEN"},
			AllowedOrigins: []string{"http://localhost", "http://127.0.0.1"},
			AllowedHosts:   []string{},
			PathExcludes:   append([]string{}, exclude.DefaultPathExcludes...),
			SecretPatterns: append([]string{}, exclude.DefaultSecretPatterns...),
			Redact: RedactConfig{Enabled: true, Replacement: exclude.DefaultReplacement,
				Patterns: append([]string{}, exclude.DefaultRedactPatterns...)},
		},
		Audit: AuditConfig{Enabled: true, MaxBytes: 10 << 20, Keep: 5},
	}
}
