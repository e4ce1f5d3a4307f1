package config

import (
	"fmt"
	"net"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Allowed values of the enum keys.
var (
	PDFModes         = []string{"off", "ocr", "auto"}
	ImageModes       = []string{"off", "ocr_auto", "ocr_on"}
	AudioModes       = []string{"off", "auto", "on"}
	ArchiveModes     = []string{"off", "shallow", "deep"}
	STTProviders     = []string{"mistral", "elevenlabs"}
	X402Modes        = []string{"off", "on", "required"}
	X402Schemes      = []string{"exact"}
	SecretsProviders = []string{"auto", "keychain", "file", "env", "session"}
	AuthModes        = []string{"auto", "none", "file"}
	EmbedProviders   = []string{"auto", "local", "local-full", "hash", "mistral", "openai", "ollama"}
	FusionMethods    = []string{"cc", "rrf"}
	ChatProviders    = []string{"auto", "mistral", "openai", "ollama", "none"}
	// DocTypes are the keys allowed in ingest.size_caps_mb.
	DocTypes = []string{"code", "text", "md", "data", "html", "pdf", "image", "audio", "archive"}
)

// problem is a validation failure of one leaf; sub extends the key path
// to the offending element ("[2]" or ".pdf").
type problem struct{ sub, msg string }

type check func(v reflect.Value) *problem

// checks validates single keys. They run whenever a layer sets a key, so
// the error names that layer, and again on the final config.
var checks = map[string]check{
	"version": func(v reflect.Value) *problem {
		if v.Int() != 1 {
			return &problem{msg: fmt.Sprintf("unsupported config version %d; this dir2mcp reads version 1", v.Int())}
		}
		return nil
	},
	"mistral.base_url":         httpURL(true),
	"mistral.chat_model":       nonEmpty,
	"mistral.embed_text_model": nonEmpty,
	"mistral.embed_code_model": nonEmpty,
	"mistral.ocr_model":        nonEmpty,

	"openai.base_url":  httpURL(true),
	"openai.embed_dim": intMin(0),
	"ollama.base_url":  httpURL(true),
	"ollama.embed_dim": intMin(0),

	"embed.provider":    oneOf(EmbedProviders),
	"embed.batch_size":  intMin(1),
	"embed.concurrency": intMin(0),

	"search.fusion":         oneOf(FusionMethods),
	"search.rrf_k":          floatAbove(0),
	"search.lexical_weight": floatMin(0),
	"search.vector_weight":  floatMin(0),
	"search.candidates":     intMin(1),
	"search.max_per_file":   intMin(0),

	"rag.chat_provider":     oneOf(ChatProviders),
	"rag.k_default":         intRange(1, 50),
	"rag.max_context_chars": intMin(1),
	"rag.oversample_factor": intMin(1),

	"ingest.pdf.mode":      oneOf(PDFModes),
	"ingest.images.mode":   oneOf(ImageModes),
	"ingest.audio.mode":    oneOf(AudioModes),
	"ingest.archives.mode": oneOf(ArchiveModes),
	"ingest.max_file_mb":   floatAbove(0),
	"ingest.size_caps_mb":  sizeCaps,
	"ingest.ignore":        eachString("a non-empty pattern", func(s string) bool { return strings.TrimSpace(s) != "" }),

	"chunking.max_chars":             intMin(1),
	"chunking.overlap_chars":         intMin(0),
	"chunking.min_chars":             intMin(0),
	"chunking.code.max_lines":        intMin(1),
	"chunking.code.overlap_lines":    intMin(0),
	"chunking.transcript.segment_ms": intMin(1),
	"chunking.transcript.overlap_ms": intMin(0),

	"stt.provider":            oneOf(STTProviders),
	"stt.mistral.base_url":    httpURL(false),
	"stt.elevenlabs.base_url": httpURL(false),

	"x402.mode":                                        oneOf(X402Modes),
	"x402.facilitator_url":                             httpURL(false),
	"x402.resource_base_url":                           httpURL(false),
	"x402.facilitator_timeout":                         positiveDuration,
	"x402.route_policy.tools_call.price":               price,
	"x402.route_policy.tools_call.network":             network,
	"x402.route_policy.tools_call.scheme":              oneOf(X402Schemes),
	"x402.route_policy.tools_call.decimals":            intRange(0, 36),
	"x402.route_policy.tools_call.max_timeout_seconds": intRange(1, 86400),
	"x402.route_policy.tools_call.tools":               eachString("a tool name like dir2mcp.ask", validToolName),
	"x402.route_policy.tools_call.prices": func(v reflect.Value) *problem {
		for _, k := range sortedKeys(v.Interface().(map[string]string)) {
			if !validToolName(k) {
				return &problem{sub: "." + k, msg: fmt.Sprintf("%q is not a tool name like dir2mcp.ask", k)}
			}
			if p := price(v.MapIndex(reflect.ValueOf(k))); p != nil {
				return &problem{sub: "." + k, msg: p.msg}
			}
		}
		return nil
	},

	"server.listen":                     listenAddr,
	"server.mcp_path":                   mcpPath,
	"server.protocol_version":           protocolVersion,
	"server.max_body_bytes":             intMin(1),
	"server.rate_limit.rps":             floatMin(0),
	"server.rate_limit.burst":           intMin(0),
	"server.rate_limit.expensive_rps":   floatMin(0),
	"server.rate_limit.expensive_burst": intMin(0),

	"secrets.provider":  oneOf(SecretsProviders),
	"secrets.file.path": nonEmpty,
	"secrets.file.mode": fileMode,

	"security.auth.mode": oneOf(AuthModes),
	"security.auth.token_env": func(v reflect.Value) *problem {
		if s := v.String(); s != "" && !validEnvName(s) {
			return &problem{msg: "want an environment variable name like DIR2MCP_AUTH_TOKEN (letters, digits, _)"}
		}
		return nil
	},
	"security.allowed_origins":    eachString("an origin like http://localhost or https://host:8443", validOrigin),
	"security.allowed_hosts":      eachString("a host name like mcp.example.com, *.example.com or *", validHostPattern),
	"security.path_excludes":      eachString("a non-empty glob pattern", func(s string) bool { return strings.TrimSpace(s) != "" }),
	"security.secret_patterns":    regexps,
	"security.redact.replacement": nonEmpty,
	"security.redact.patterns":    regexps,

	"server.tools": eachString("a tool name like dir2mcp.search", validToolName),

	"audit.max_bytes": intMin(4096),
	"audit.keep":      intRange(1, 1000),
}

// regexps checks a list of regular expressions.
func regexps(v reflect.Value) *problem {
	for i := 0; i < v.Len(); i++ {
		if _, err := regexp.Compile(v.Index(i).String()); err != nil {
			return &problem{sub: fmt.Sprintf("[%d]", i), msg: fmt.Sprintf("invalid regular expression: %v", err)}
		}
	}
	return nil
}

// checkLeaf runs the check of key path p, if any.
func checkLeaf(p string, v reflect.Value) *problem {
	if c := checks[p]; c != nil {
		return c(v)
	}
	return nil
}

func oneOf(allowed []string) check {
	return func(v reflect.Value) *problem {
		for _, a := range allowed {
			if v.String() == a {
				return nil
			}
		}
		return &problem{msg: fmt.Sprintf("%q is not allowed; want one of: %s", v.String(), strings.Join(allowed, ", "))}
	}
}

func nonEmpty(v reflect.Value) *problem {
	if strings.TrimSpace(v.String()) == "" {
		return &problem{msg: "must not be empty"}
	}
	return nil
}

func intMin(lo int64) check {
	return func(v reflect.Value) *problem {
		if v.Int() < lo {
			return &problem{msg: fmt.Sprintf("%d is out of range; want an integer >= %d", v.Int(), lo)}
		}
		return nil
	}
}

func intRange(lo, hi int64) check {
	return func(v reflect.Value) *problem {
		if n := v.Int(); n < lo || n > hi {
			return &problem{msg: fmt.Sprintf("%d is out of range; want an integer from %d to %d", n, lo, hi)}
		}
		return nil
	}
}

func floatMin(lo float64) check {
	return func(v reflect.Value) *problem {
		if v.Float() < lo {
			return &problem{msg: fmt.Sprintf("%v is out of range; want a number >= %v", v.Float(), lo)}
		}
		return nil
	}
}

func floatAbove(lo float64) check {
	return func(v reflect.Value) *problem {
		if v.Float() <= lo {
			return &problem{msg: fmt.Sprintf("%v is out of range; want a number > %v", v.Float(), lo)}
		}
		return nil
	}
}

func eachString(want string, ok func(string) bool) check {
	return func(v reflect.Value) *problem {
		for i := 0; i < v.Len(); i++ {
			if s := v.Index(i).String(); !ok(s) {
				return &problem{sub: fmt.Sprintf("[%d]", i), msg: fmt.Sprintf("%q is not valid; want %s", s, want)}
			}
		}
		return nil
	}
}

func httpURL(required bool) check {
	return func(v reflect.Value) *problem {
		s := v.String()
		if s == "" && !required {
			return nil
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &problem{msg: fmt.Sprintf("%q is not an http(s) URL like https://host", s)}
		}
		return nil
	}
}

func validOrigin(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		(u.Path == "" || u.Path == "/") && u.RawQuery == "" && u.User == nil
}

// validHostPattern accepts a bare host name (no scheme, port or path), a
// "*." domain wildcard, or "*".
func validHostPattern(s string) bool {
	s = strings.TrimPrefix(s, "*.")
	return s == "*" || (s != "" && !strings.ContainsAny(s, ":/ \t@?#"))
}

var (
	isoDate    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	docTypeSet = func() map[string]bool {
		m := map[string]bool{}
		for _, t := range DocTypes {
			m[t] = true
		}
		return m
	}()
)

func sizeCaps(v reflect.Value) *problem {
	for _, k := range sortedKeys(v.Interface().(map[string]float64)) {
		if !docTypeSet[k] {
			return &problem{sub: "." + k, msg: fmt.Sprintf("unknown doc_type %q; want one of: %s", k, strings.Join(DocTypes, ", "))}
		}
		if mb := v.MapIndex(reflect.ValueOf(k)).Float(); mb <= 0 {
			return &problem{sub: "." + k, msg: fmt.Sprintf("%v is out of range; want a size in MB > 0", mb)}
		}
	}
	return nil
}

func listenAddr(v reflect.Value) *problem {
	s := v.String()
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return &problem{msg: fmt.Sprintf("%q is not a host:port address like 127.0.0.1:0", s)}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return &problem{msg: fmt.Sprintf("port %q is not a number from 0 to 65535", port)}
	}
	if host != "" && net.ParseIP(host) == nil && !validHostname(host) {
		return &problem{msg: fmt.Sprintf("host %q is not an IP address or host name", host)}
	}
	return nil
}

func validHostname(h string) bool {
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
	}
	return true
}

func mcpPath(v reflect.Value) *problem {
	s := v.String()
	if !strings.HasPrefix(s, "/") || strings.ContainsAny(s, "?# ") {
		return &problem{msg: fmt.Sprintf("%q is not a URL path like /mcp", s)}
	}
	return nil
}

func protocolVersion(v reflect.Value) *problem {
	if !isoDate.MatchString(v.String()) {
		return &problem{msg: fmt.Sprintf("%q is not an MCP protocol version like 2025-11-25", v.String())}
	}
	return nil
}

func fileMode(v reflect.Value) *problem {
	m, err := strconv.ParseUint(v.String(), 8, 32)
	if err != nil || m > 0o777 {
		return &problem{msg: fmt.Sprintf("%q is not an octal file mode like 0600", v.String())}
	}
	if m&0o077 != 0 || m&0o600 != 0o600 {
		return &problem{msg: fmt.Sprintf("%q must give the owner read/write and nobody else access (use 0600)", v.String())}
	}
	return nil
}

// validate checks the final config: every single-key check, then the
// constraints between keys. Messages name where each value came from.
func validate(cfg *Config, src *Sources) error {
	for i := range leaves {
		l := &leaves[i]
		if p := checkLeaf(l.path, l.value(cfg)); p != nil {
			return &errcode.Error{Code: errcode.ConfigInvalid, Field: l.path + p.sub,
				Message: fmt.Sprintf("%s%s: %s (%s)", l.path, p.sub, p.msg, src.describe(l.path))}
		}
	}
	c := cfg.Chunking
	if err := less(src, "chunking.overlap_chars", c.OverlapChars, "chunking.max_chars", c.MaxChars, false); err != nil {
		return err
	}
	if err := less(src, "chunking.min_chars", c.MinChars, "chunking.max_chars", c.MaxChars, true); err != nil {
		return err
	}
	if err := less(src, "chunking.code.overlap_lines", c.Code.OverlapLines, "chunking.code.max_lines", c.Code.MaxLines, false); err != nil {
		return err
	}
	if err := less(src, "chunking.transcript.overlap_ms", c.Transcript.OverlapMs, "chunking.transcript.segment_ms", c.Transcript.SegmentMs, false); err != nil {
		return err
	}
	if cfg.Search.LexicalWeight == 0 && cfg.Search.VectorWeight == 0 {
		return cross(src, "search.vector_weight", "search.lexical_weight and search.vector_weight are both 0; at least one channel needs a weight > 0")
	}
	if cfg.RAG.GenerateAnswer {
		switch {
		case cfg.RAG.ChatProvider == "openai" && cfg.OpenAI.ChatModel == "":
			return cross(src, "openai.chat_model", "must name a model when rag.chat_provider is openai")
		case cfg.RAG.ChatProvider == "ollama" && cfg.Ollama.ChatModel == "":
			return cross(src, "ollama.chat_model", "must name a model when rag.chat_provider is ollama")
		case cfg.RAG.ChatProvider == "mistral" && cfg.Mistral.ChatModel == "":
			return cross(src, "mistral.chat_model", "must name a model when rag.chat_provider is mistral")
		}
	}
	rl := cfg.Server.RateLimit
	if rl.RPS > 0 && rl.Burst < 1 {
		return cross(src, "server.rate_limit.burst", "must be >= 1 when server.rate_limit.rps is > 0 (rps 0 turns limiting off)")
	}
	if rl.ExpensiveRPS > 0 && rl.ExpensiveBurst < 1 {
		return cross(src, "server.rate_limit.expensive_burst", "must be >= 1 when server.rate_limit.expensive_rps is > 0 (rps 0 turns limiting off)")
	}
	if t := cfg.Server.TLS; t.Enabled && (t.CertFile == "" || t.KeyFile == "") {
		e := cross(src, "server.tls.enabled", "TLS is enabled but server.tls.cert_file and server.tls.key_file are not both set (flags --tls-cert and --tls-key)")
		e.Code = errcode.TLSConfigInvalid
		return e
	}
	if cfg.Server.Public && cfg.Security.Auth.Mode == "none" {
		return cross(src, "server.public", "a public server requires a bearer token; security.auth.mode none is not allowed with server.public true")
	}
	if a := cfg.Security.Auth; a.Mode == "file" && a.TokenFile == "" {
		return cross(src, "security.auth.token_file", "must name the token file when security.auth.mode is file (flag --auth file:<path>)")
	}
	return validateX402(cfg, src)
}

// less requires a < b (or a <= b when orEqual).
func less(src *Sources, pa string, a int, pb string, b int, orEqual bool) *errcode.Error {
	if a < b || orEqual && a == b {
		return nil
	}
	rel := "less than"
	if orEqual {
		rel = "at most"
	}
	return &errcode.Error{Code: errcode.ConfigInvalid, Field: pa,
		Message: fmt.Sprintf("%s (%d, %s) must be %s %s (%d, %s)", pa, a, src.describe(pa), rel, pb, b, src.describe(pb))}
}

func cross(src *Sources, p, msg string) *errcode.Error {
	return &errcode.Error{Code: errcode.ConfigInvalid, Field: p, Message: fmt.Sprintf("%s: %s (%s)", p, msg, src.describe(p))}
}
