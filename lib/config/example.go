package config

import (
	"fmt"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/exclude"
)

// ExampleYAML returns a fully commented .dir2mcp.yaml whose values equal
// Default() (the SPEC §16.2 template plus dir2mcp's extension sections),
// for `dir2mcp config init` and the docs.
func ExampleYAML() string {
	var b strings.Builder
	for _, k := range exclude.CredentialKinds {
		fmt.Fprintf(&b, "      - '%s'   # %s\n", strings.ReplaceAll(k.Pattern, "'", "''"), k.Name)
	}
	out := strings.Replace(exampleYAML, "      REDACT_PATTERNS\n", b.String(), 1)
	return strings.Replace(out, "GENERIC_TOKEN", strings.ReplaceAll(exclude.GenericTokenPattern, "'", "''"), 1)
}

const exampleYAML = `# .dir2mcp.yaml — dir2mcp configuration (SPEC §16).
# Precedence: command-line flags > DIR2MCP_* env vars > this file > defaults.
# Every key can be overridden by DIR2MCP_<KEY_PATH> (dots become _), e.g.
# DIR2MCP_SERVER_LISTEN or DIR2MCP_CHUNKING_CODE_MAX_LINES; lists are
# comma-separated. String values may use ${VAR} and ${VAR:-default}.
# Secrets: write ${VAR} references, never the key itself; MISTRAL_API_KEY and
# ELEVENLABS_API_KEY in the environment always win.
version: 1

mistral:
  api_key: ${MISTRAL_API_KEY}
  base_url: https://api.mistral.ai
  chat_model: mistral-small-2506
  embed_text_model: mistral-embed
  embed_code_model: codestral-embed
  ocr_model: mistral-ocr-latest

# OpenAI or an OpenAI-compatible server (vLLM, LM Studio, llama.cpp, LiteLLM)
# for embed.provider openai and rag.chat_provider openai (dir2mcp extension).
openai:
  api_key: ${OPENAI_API_KEY}   # optional for local servers
  base_url: https://api.openai.com
  chat_model: ""
  embed_text_model: text-embedding-3-small
  embed_code_model: ""     # empty = embed_text_model
  embed_dim: 0             # 0 = the model's default dimension

# A local Ollama server for embed.provider ollama and rag.chat_provider ollama
# (dir2mcp extension).
ollama:
  base_url: http://localhost:11434
  chat_model: ""
  embed_text_model: nomic-embed-text
  embed_code_model: ""     # empty = embed_text_model
  embed_dim: 0             # 0 = the model's known dimension

# Embedder selection (dir2mcp extension).
embed:
  provider: auto           # auto|local|local-full|hash|mistral|openai|ollama (auto: mistral when a key is set, else local)
  batch_size: 256          # inputs per embed call
  concurrency: 0           # parallel embed calls; 0 = number of CPUs

# Hybrid retrieval tuning (dir2mcp extension).
search:
  fusion: cc               # cc (convex combination of normalised scores) | rrf (reciprocal rank fusion)
  rrf_k: 60                # reciprocal rank fusion constant
  lexical_weight: 1        # BM25 channel weight
  vector_weight: 1.3       # vector channel weight (cc: scaled per query by what BM25 leaves unexplained)
  candidates: 100          # candidates per channel before fusion
  max_per_file: 3          # cap on hits from one file; 0 = no cap

rag:
  generate_answer: true
  chat_provider: auto      # auto|mistral|openai|ollama|none (auto: mistral when a key is set, else extractive answers)
  k_default: 10            # 1..50
  system_prompt: |
    You are a retrieval-augmented assistant.
    Use citations and never invent sources.
  max_context_chars: 20000
  oversample_factor: 5

ingest:
  gitignore: true
  pdf:
    mode: ocr              # off|ocr|auto
  images:
    mode: ocr_auto         # off|ocr_auto|ocr_on
  audio:
    mode: auto             # off|auto|on
    cache: true
  archives:
    mode: deep             # off|shallow|deep
  follow_symlinks: false
  max_file_mb: 20
  # Per doc_type size caps in MB (code|text|md|data|html|pdf|image|audio|archive);
  # types not listed use max_file_mb. Entries merge with these defaults.
  size_caps_mb:
    code: 4
    data: 8
  # Extra gitignore-style patterns to skip, on top of the built-in ignore list.
  ignore: []
  # Re-index incrementally while "dir2mcp up" runs whenever files under the root change.
  watch: true

chunking:
  max_chars: 2500
  overlap_chars: 250       # must be < max_chars
  min_chars: 200
  code:
    max_lines: 80          # tuned on the gostd eval (SPEC template: 200); smaller windows rank better
    overlap_lines: 12      # must be < max_lines
  transcript:
    segment_ms: 30000
    overlap_ms: 5000       # must be < segment_ms

stt:
  provider: mistral        # mistral|elevenlabs
  mistral:
    api_key: ${MISTRAL_API_KEY}
    base_url: ""           # empty = mistral.base_url
    model: voxtral-mini-latest
    timestamps: true
  elevenlabs:
    api_key: ${ELEVENLABS_API_KEY}
    base_url: ""           # empty = the ElevenLabs API
    model: scribe
    timestamps: true

x402:
  enabled: false           # legacy switch: true means mode on when mode is not set
  mode: off                # off|on|required (on: the tools below; required: every tools/call)
  facilitator_url: ""      # needed by on/required; https unless on a loopback address
  resource_base_url: ""    # public base URL named in payment requirements
  facilitator_timeout: 10s # per verify/settle request; slower answers fail closed
  route_policy:
    tools_call:
      enabled: false       # legacy switch, like x402.enabled
      price: "0.001"       # default per-call price in whole asset units (USDC: dollars)
      network: "eip155:8453"   # CAIP-2 network id
      scheme: "exact"
      asset: ""            # empty = the network's USDC; a custom token also needs decimals and extra
      pay_to: ""           # receiving address (needed by on/required)
      decimals: 0          # decimals of a custom asset
      extra: {}            # scheme extra of a custom asset, e.g. name/version (EIP-712 domain)
      max_timeout_seconds: 300 # how long a signed payment stays valid (covers the tool run)
      tools: []            # tool names charged in mode on, e.g. [dir2mcp.ask]
      prices: {}           # per-tool price overrides (also charged in mode on), e.g. dir2mcp.ask: "0.01"
  bazaar:
    enabled: false
    metadata:
      description: ""

server:
  listen: "127.0.0.1:0"
  mcp_path: "/mcp"
  protocol_version: "2025-11-25"
  tls:
    enabled: false
    cert_file: ""
    key_file: ""
  public: false
  # session timeouts for MCP sessions
  # default inactivity ~24h, adjust as needed
  # session_max_lifetime zero disables absolute limit
  session_inactivity_timeout: "24h"
  session_max_lifetime: "0"
  max_body_bytes: 4194304  # largest accepted request body (4 MiB)
  rate_limit:              # per client; rps 0 turns a tier off
    rps: 1000              # per client address other than loopback (reachable with --public)
    burst: 2000
    loopback: false        # true also limits loopback clients (127.0.0.0/8, ::1); false: never limited
    expensive_rps: 2       # ask/transcribe tier
    expensive_burst: 5
  tool_timeout: "60s"           # deadline of one tool call or resource read (TIMEOUT after it)
  provider_tool_timeout: "10m"  # deadline of tools that call a provider (transcribe, annotate…)
  tools: []              # serve only these tools (flag --tools); empty = all

secrets:
  provider: auto         # auto|keychain|file|env|session (keychain is not supported by this build)
  keychain:
    service: "dir2mcp"
    account: "default"
  file:
    path: ".dir2mcp/secret.env"   # KEY=value lines; relative to the root directory
    mode: "0600"

security:
  auth:
    mode: auto           # auto|none|file
    token_file: ""       # used when mode=file
    token_env: "DIR2MCP_AUTH_TOKEN"
  allowed_origins:
    - "http://localhost"
    - "http://127.0.0.1"
  allowed_hosts: []      # DNS names clients may use in Host besides IPs, localhost and this hostname
  path_excludes:
    - "**/.git/**"
    - "**/node_modules/**"
    - "**/.dir2mcp/**"
    - "**/.env"
    - "**/*.pem"
    - "**/*.key"
    - "**/id_rsa"
    # beyond SPEC §16.2: other files that hold credentials by name
    - "**/.env.*"
    - "**/id_dsa"
    - "**/id_ecdsa"
    - "**/id_ecdsa_sk"
    - "**/id_ed25519"
    - "**/id_ed25519_sk"
    - "**/*.p12"
    - "**/*.pfx"
    - "**/*.jks"
    - "**/*.keystore"
    - "**/.netrc"
    - "**/_netrc"
    - "**/.pgpass"
    - "**/.git-credentials"
    - "**/.docker/config.json"
    - "**/.aws/credentials"
    - "**/.npmrc"
    - "**/.pypirc"
    - "**/.htpasswd"
  secret_patterns:
    - 'AKIA[0-9A-Z]{16}'
    # AWS secret key: the keyword, or a 40-character value assigned to an aws/secret/private key.
    # (SPEC §16.2's literal rule also flags any bare 40-character run: hashes, go.sum lines, long
    # identifiers — 7% of the Go standard library — so the default anchors it as §7.2 advises.)
    - '(?i)aws(.{0,20})?secret|(?i)(?:aws|secret|private)[a-z0-9_.-]{0,30}["'']?\s*[:=]\s*["'']?[0-9a-zA-Z/+=]{40}(?:[^0-9a-zA-Z/+=]|$)'
    - '(?i)(?:authorization\s*[:=]\s*bearer\s+|(?:access|id|refresh)_token\s*[:=]\s*)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}'
    # Generic token: a literal of 20+ characters with a digit after "token:" or "token="
    # (SPEC §16.2's form, token\s*[:=]\s*[A-Za-z0-9_.-]{20,}, also fires on code naming a
    # token by identifier, e.g. RequestRefreshToken: tt.requestRefreshToken).
    - 'GENERIC_TOKEN'
    - 'sk_[a-z0-9]{32}|api_[A-Za-z0-9]{32}'
  # Credentials inside files that ARE indexed (files matching secret_patterns are
  # excluded whole) are masked in the index and in everything served: search
  # snippets, open_file, ask answers, resources, the audit log's arguments.
  # A (?P<secret>...) group masks only the value. Line breaks are kept.
  redact:
    enabled: true
    replacement: "[REDACTED]"
    patterns:
      REDACT_PATTERNS

# Audit log: one JSON line per tool call in <state dir>/audit.jsonl (never a
# token, a key or file content); read it with dir2mcp audit.
audit:
  enabled: true
  max_bytes: 10485760    # rotate at 10 MiB
  keep: 5                # rotated files kept: audit.jsonl.1 … audit.jsonl.5
`
