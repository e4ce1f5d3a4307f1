package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func TestLoadWithoutFileGivesDefaults(t *testing.T) {
	cfg, src, err := Load(LoadOptions{Dir: t.TempDir(), Env: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutSecrets(cfg), Default()) {
		t.Errorf("config without file differs from Default()")
	}
	if src.File != "" {
		t.Errorf("File = %q, want none", src.File)
	}
	for _, p := range KeyPaths() {
		if o := src.Of(p); o != SourceDefault {
			t.Errorf("%s source = %s, want default", p, o)
		}
	}
	if len(src.Warnings) != 0 {
		t.Errorf("unexpected warnings: %v", src.Warnings)
	}
}

func TestLoadDefaultFileIsRelativeToDir(t *testing.T) {
	dir := t.TempDir()
	p := writeConfig(t, dir, "rag:\n  k_default: 7\n")
	cfg, src, err := Load(LoadOptions{Dir: dir, Env: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RAG.KDefault != 7 || src.File != p || src.Of("rag.k_default") != SourceFile || src.Line("rag.k_default") != 2 {
		t.Errorf("k_default=%d file=%q source=%s line=%d", cfg.RAG.KDefault, src.File, src.Of("rag.k_default"), src.Line("rag.k_default"))
	}
}

func TestLoadExplicitConfigMustExist(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	_, _, err := Load(LoadOptions{Dir: t.TempDir(), ConfigPath: missing, Env: env(nil)})
	wantConfigErr(t, err, "", missing, "does not exist", "dir2mcp config init")
}

func TestLoadExplicitConfigPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "custom.yaml")
	os.WriteFile(p, []byte("server:\n  mcp_path: /x\n"), 0o644)
	cfg, src, err := Load(LoadOptions{Dir: t.TempDir(), ConfigPath: p, Env: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.MCPPath != "/x" || src.File != p {
		t.Errorf("mcp_path=%q file=%q", cfg.Server.MCPPath, src.File)
	}
}

// Each layer beats the one below it, key by key, for every value kind.
func TestPrecedencePerKey(t *testing.T) {
	cases := []struct {
		path              string
		file, envV, flag  string // file is the YAML value text
		wantFile, wantEnv any
		wantFlag          any
	}{
		{"server.listen", `"127.0.0.1:1000"`, "127.0.0.1:2000", "127.0.0.1:3000", "127.0.0.1:1000", "127.0.0.1:2000", "127.0.0.1:3000"},
		{"chunking.code.max_lines", "100", "120", "140", 100, 120, 140},
		{"search.rrf_k", "10", "20.5", "30", 10.0, 20.5, 30.0},
		{"ingest.gitignore", "false", "true", "false", false, true, false},
		{"server.session_max_lifetime", `"1h"`, "30m", "90s", Duration(3600e9), Duration(1800e9), Duration(90e9)},
		{"security.allowed_origins", `["http://a"]`, "http://b,http://c", "http://d", []string{"http://a"}, []string{"http://b", "http://c"}, []string{"http://d"}},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			l := leafByPath[c.path]
			body := yamlAt(c.path, c.file)
			layers := []struct {
				name  string
				env   map[string]string
				flags map[string]string
				want  any
				src   string
			}{
				{"file", nil, nil, c.wantFile, SourceFile},
				{"env", map[string]string{l.env: c.envV}, nil, c.wantEnv, "env:" + l.env},
				{"flag", map[string]string{l.env: c.envV}, map[string]string{c.path: c.flag}, c.wantFlag, SourceFlag},
			}
			for _, ly := range layers {
				dir := t.TempDir()
				writeConfig(t, dir, body)
				cfg, src, err := Load(LoadOptions{Dir: dir, Env: env(ly.env), Flags: ly.flags})
				if err != nil {
					t.Fatalf("%s: %v", ly.name, err)
				}
				if got := leafValue(t, cfg, c.path); !reflect.DeepEqual(got, ly.want) {
					t.Errorf("%s layer: %s = %#v, want %#v", ly.name, c.path, got, ly.want)
				}
				if got := src.Of(c.path); got != ly.src {
					t.Errorf("%s layer: source = %q, want %q", ly.name, got, ly.src)
				}
			}
		})
	}
}

// yamlAt renders "a.b.c" = v as nested YAML.
func yamlAt(path, v string) string {
	parts := strings.Split(path, ".")
	var b strings.Builder
	for i, p := range parts {
		b.WriteString(strings.Repeat("  ", i) + p + ":")
		if i == len(parts)-1 {
			b.WriteString(" " + v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Layers combine: each key takes its value from the highest layer that
// sets it, independently of other keys.
func TestLayersCombineAcrossKeys(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "rag:\n  k_default: 5\n  max_context_chars: 9000\nembed:\n  batch_size: 64\n")
	cfg, src, err := Load(LoadOptions{Dir: dir,
		Env:   env(map[string]string{"DIR2MCP_RAG_K_DEFAULT": "7", "DIR2MCP_EMBED_BATCH_SIZE": "32"}),
		Flags: map[string]string{"embed.batch_size": "16"}})
	if err != nil {
		t.Fatal(err)
	}
	got := []any{cfg.RAG.KDefault, cfg.RAG.MaxContextChars, cfg.Embed.BatchSize, cfg.RAG.OversampleFactor}
	want := []any{7, 9000, 16, 5}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	srcs := []string{src.Of("rag.k_default"), src.Of("rag.max_context_chars"), src.Of("embed.batch_size"), src.Of("rag.oversample_factor")}
	wantSrc := []string{"env:DIR2MCP_RAG_K_DEFAULT", "file", "flag", "default"}
	if !reflect.DeepEqual(srcs, wantSrc) {
		t.Errorf("sources %v, want %v", srcs, wantSrc)
	}
}

func TestUnknownKeyNamesPathAndLine(t *testing.T) {
	_, _, err := loadYAML(t, "version: 1\ningest:\n  pdf:\n    mod: ocr\n", nil)
	wantConfigErr(t, err, "ingest.pdf.mod", ".dir2mcp.yaml:4:", "ingest.pdf.mod", "unknown key", `did you mean "mode"`, "allowed keys under ingest.pdf: mode")
}

func TestUnknownTopLevelKey(t *testing.T) {
	_, _, err := loadYAML(t, "servr:\n  listen: x\n", nil)
	wantConfigErr(t, err, "servr", ":1:", `did you mean "server"`, "at the top level")
}

func TestBadEnum(t *testing.T) {
	_, _, err := loadYAML(t, "ingest:\n  pdf:\n    mode: scan\n", nil)
	wantConfigErr(t, err, "ingest.pdf.mode", ".dir2mcp.yaml:3:", `"scan" is not allowed`, "off, ocr, auto")
}

func TestBadType(t *testing.T) {
	_, _, err := loadYAML(t, "chunking:\n  max_chars: lots\n", nil)
	wantConfigErr(t, err, "chunking.max_chars", ":2:", "want an integer", `"lots"`)

	_, _, err = loadYAML(t, "chunking:\n  code: 5\n", nil)
	wantConfigErr(t, err, "chunking.code", ":2:", "want a mapping", "max_lines")

	_, _, err = loadYAML(t, "security:\n  allowed_origins: http://x\n", nil)
	wantConfigErr(t, err, "security.allowed_origins", ":2:", "want a list")

	_, _, err = loadYAML(t, "server:\n  listen:\n    host: x\n", nil)
	wantConfigErr(t, err, "server.listen", ":3:", "want a string")
}

func TestBadDuration(t *testing.T) {
	_, _, err := loadYAML(t, "server:\n  session_inactivity_timeout: 1 day\n", nil)
	wantConfigErr(t, err, "server.session_inactivity_timeout", ":2:", "24h, 30m, 90s or 0")

	_, _, err = loadYAML(t, "server:\n  session_max_lifetime: 90\n", nil)
	wantConfigErr(t, err, "server.session_max_lifetime", "24h")

	cfg, _, err := loadYAML(t, "server:\n  session_max_lifetime: 0\n  session_inactivity_timeout: 90s\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.SessionMaxLifetime != 0 || cfg.Server.SessionInactivityTimeout.Std().Seconds() != 90 {
		t.Errorf("durations = %v, %v", cfg.Server.SessionMaxLifetime, cfg.Server.SessionInactivityTimeout)
	}
}

func TestBadRegexNamesIndexAndLine(t *testing.T) {
	body := "security:\n  secret_patterns:\n    - 'AKIA[0-9A-Z]{16}'\n    - '(unclosed'\n"
	_, _, err := loadYAML(t, body, nil)
	wantConfigErr(t, err, "security.secret_patterns[1]", ".dir2mcp.yaml:4:", "invalid regular expression")
}

func TestRanges(t *testing.T) {
	cases := []struct{ body, field, frag string }{
		{"rag:\n  k_default: 51\n", "rag.k_default", "from 1 to 50"},
		{"rag:\n  oversample_factor: 0\n", "rag.oversample_factor", ">= 1"},
		{"chunking:\n  max_chars: 0\n", "chunking.max_chars", ">= 1"},
		{"server:\n  listen: 127.0.0.1:99999\n", "server.listen", "0 to 65535"},
		{"server:\n  listen: localhost\n", "server.listen", "host:port"},
		{"server:\n  mcp_path: mcp\n", "server.mcp_path", "/mcp"},
		{"version: 2\n", "version", "version 1"},
		{"ingest:\n  size_caps_mb:\n    movies: 3\n", "ingest.size_caps_mb.movies", "unknown doc_type"},
		{"ingest:\n  size_caps_mb:\n    pdf: 0\n", "ingest.size_caps_mb.pdf", "> 0"},
		{"secrets:\n  file:\n    mode: \"0644\"\n", "secrets.file.mode", "0600"},
		{"security:\n  allowed_origins: [\"localhost\"]\n", "security.allowed_origins[0]", "origin"},
		{"x402:\n  route_policy:\n    tools_call:\n      network: base\n", "x402.route_policy.tools_call.network", "CAIP-2"},
		{"embed:\n  provider: cohere\n", "embed.provider", "auto, local, local-full, hash, mistral, openai, ollama"},
	}
	for _, c := range cases {
		_, _, err := loadYAML(t, c.body, nil)
		wantConfigErr(t, err, c.field, c.frag)
	}
}

func TestCrossFieldChecksUseMergedConfig(t *testing.T) {
	// The file alone is invalid (overlap 3000 >= max 2500 default) ...
	_, _, err := loadYAML(t, "chunking:\n  overlap_chars: 3000\n", nil)
	wantConfigErr(t, err, "chunking.overlap_chars", "chunking.overlap_chars (3000, ", "/.dir2mcp.yaml:2) must be less than chunking.max_chars (2500, default)")
	// ... unless a higher layer repairs it.
	dir := t.TempDir()
	writeConfig(t, dir, "chunking:\n  max_chars: 200\n  min_chars: 100\n")
	_, _, err = Load(LoadOptions{Dir: dir, Env: env(nil)})
	wantConfigErr(t, err, "chunking.overlap_chars", "(250, default)", "chunking.max_chars (200, ", "/.dir2mcp.yaml:2)")
	if _, _, err := Load(LoadOptions{Dir: dir, Env: env(map[string]string{"DIR2MCP_CHUNKING_OVERLAP_CHARS": "20"})}); err != nil {
		t.Errorf("env repair rejected: %v", err)
	}
	// A final value set by env is named by its variable.
	_, _, err = Load(LoadOptions{Dir: t.TempDir(), Env: env(map[string]string{"DIR2MCP_CHUNKING_CODE_OVERLAP_LINES": "200"})})
	wantConfigErr(t, err, "chunking.code.overlap_lines", "env DIR2MCP_CHUNKING_CODE_OVERLAP_LINES")
}

func TestOtherCrossFieldChecks(t *testing.T) {
	_, _, err := loadYAML(t, "server:\n  tls:\n    enabled: true\n    cert_file: c.pem\n", nil)
	var e *errcode.Error
	if !errors.As(err, &e) || e.Code != errcode.TLSConfigInvalid || e.Field != "server.tls.enabled" {
		t.Errorf("TLS without key: %v", err)
	}
	_, _, err = loadYAML(t, "server:\n  public: true\nsecurity:\n  auth:\n    mode: none\n", nil)
	wantConfigErr(t, err, "server.public", "bearer token")
	_, _, err = loadYAML(t, "security:\n  auth:\n    mode: file\n", nil)
	wantConfigErr(t, err, "security.auth.token_file", "--auth file:")
	_, _, err = loadYAML(t, "x402:\n  mode: required\n", nil)
	wantConfigErr(t, err, "x402.facilitator_url", "x402.mode is required")
	_, _, err = loadYAML(t, "search:\n  lexical_weight: 0\n  vector_weight: 0\n", nil)
	wantConfigErr(t, err, "search.vector_weight", "both 0")
}

func TestYAMLStructure(t *testing.T) {
	_, _, err := loadYAML(t, "rag:\n  k_default: 3\n  k_default: 4\n", nil)
	wantConfigErr(t, err, "rag.k_default", ":3:", "duplicate key (first set at line 2)")

	_, _, err = loadYAML(t, "rag: [\n", nil)
	wantConfigErr(t, err, "", "invalid YAML")

	_, _, err = loadYAML(t, "- a\n- b\n", nil)
	wantConfigErr(t, err, "", "top level must be a mapping")

	_, _, err = loadYAML(t, "version: 1\n---\nversion: 1\n", nil)
	wantConfigErr(t, err, "", "second YAML document")

	// Empty file, comment-only file and empty sections keep defaults.
	for _, body := range []string{"", "# nothing\n", "ingest:\nserver:\n  tls:\n"} {
		cfg, _, err := loadYAML(t, body, nil)
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if !reflect.DeepEqual(withoutSecrets(cfg), Default()) {
			t.Errorf("%q changed the defaults", body)
		}
	}
}

func TestAnchorsAndAliases(t *testing.T) {
	cfg, _, err := loadYAML(t, "ingest:\n  pdf: &p\n    mode: \"off\"\n  archives: *p\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Ingest.PDF.Mode != "off" || cfg.Ingest.Archives.Mode != "off" {
		t.Errorf("modes = %+v", cfg.Ingest)
	}
	// An alias is checked against the key it lands on.
	_, _, err = loadYAML(t, "ingest:\n  pdf: &p\n    mode: ocr\n  archives: *p\n", nil)
	wantConfigErr(t, err, "ingest.archives.mode", "off, shallow, deep")
}

func TestNullLeafAndListValues(t *testing.T) {
	cfg, src, err := loadYAML(t, "security:\n  path_excludes:\n  allowed_origins: []\nx402:\n  facilitator_url:\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Security.PathExcludes) != 0 || len(cfg.Security.AllowedOrigins) != 0 || cfg.X402.FacilitatorURL != "" {
		t.Errorf("null/empty values: %+v", cfg.Security)
	}
	if src.Of("security.path_excludes") != SourceFile {
		t.Errorf("null list not recorded as set by file")
	}
}

func TestMapsMergeWithDefaults(t *testing.T) {
	cfg, src, err := loadYAML(t, "ingest:\n  size_caps_mb:\n    pdf: 50\n    code: 2.5\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"code": 2.5, "data": 8, "pdf": 50}
	if !reflect.DeepEqual(cfg.Ingest.SizeCapsMB, want) {
		t.Errorf("size_caps_mb = %v, want %v", cfg.Ingest.SizeCapsMB, want)
	}
	if src.Of("ingest.size_caps_mb.data") != SourceDefault || src.Of("ingest.size_caps_mb.pdf") != SourceFile || src.Line("ingest.size_caps_mb.pdf") != 3 {
		t.Errorf("entry sources: data=%s pdf=%s line %d", src.Of("ingest.size_caps_mb.data"), src.Of("ingest.size_caps_mb.pdf"), src.Line("ingest.size_caps_mb.pdf"))
	}
	cfg, _, err = loadYAML(t, "ingest:\n  size_caps_mb:\n", nil)
	if err != nil || len(cfg.Ingest.SizeCapsMB) != 0 {
		t.Errorf("null map should clear: %v %v", cfg.Ingest.SizeCapsMB, err)
	}
}

func TestExpansion(t *testing.T) {
	body := "server:\n  listen: ${HOST:-127.0.0.1}:${PORT:-0}\nrag:\n  k_default: ${K}\nsecurity:\n  secret_patterns: ['x$', '$${literal}']\n"
	cfg, src, err := loadYAML(t, body, map[string]string{"PORT": "8080", "K": "12"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Listen != "127.0.0.1:8080" || cfg.RAG.KDefault != 12 {
		t.Errorf("listen=%q k=%d", cfg.Server.Listen, cfg.RAG.KDefault)
	}
	if !reflect.DeepEqual(cfg.Security.SecretPatterns, []string{"x$", "${literal}"}) {
		t.Errorf("patterns = %q", cfg.Security.SecretPatterns)
	}
	if len(src.Warnings) != 0 {
		t.Errorf("warnings: %v", src.Warnings)
	}

	// An unset variable without default expands empty and warns.
	cfg, src, err = loadYAML(t, "x402:\n  resource_base_url: ${BASE}\n", nil)
	if err != nil || cfg.X402.ResourceBaseURL != "" || len(src.Warnings) != 1 || !strings.Contains(src.Warnings[0], "${BASE} is not set") {
		t.Errorf("unset var: %q %v %v", cfg.X402.ResourceBaseURL, src.Warnings, err)
	}

	_, _, err = loadYAML(t, "server:\n  listen: ${PORT\n", nil)
	wantConfigErr(t, err, "server.listen", ":2:", "${NAME}")

	// A credential may not leak into a plain value.
	_, _, err = loadYAML(t, "x402:\n  bazaar:\n    metadata:\n      description: ${MISTRAL_API_KEY}\n", map[string]string{"MISTRAL_API_KEY": "k"})
	wantConfigErr(t, err, "x402.bazaar.metadata.description", "credential")
	_, _, err = loadYAML(t, "security:\n  auth:\n    token_env: ${DIR2MCP_AUTH_TOKEN}\n", nil)
	wantConfigErr(t, err, "security.auth.token_env", "credential")
}

func TestEnvOverrides(t *testing.T) {
	cfg, src, err := Load(LoadOptions{Dir: t.TempDir(), Env: env(map[string]string{
		"DIR2MCP_SECURITY_ALLOWED_ORIGINS": "http://a, https://b:8443",
		"DIR2MCP_INGEST_GITIGNORE":         "false",
		"DIR2MCP_INGEST_FOLLOW_SYMLINKS":   "yes",
		"DIR2MCP_INGEST_SIZE_CAPS_MB":      "pdf=50,code=1",
		"DIR2MCP_SECURITY_SECRET_PATTERNS": `["a{1,2}", "b"]`,
		"DIR2MCP_INGEST_IGNORE":            `x\,y,z`,
		"DIR2MCP_SERVER_MAX_BODY_BYTES":    "", // empty: ignored for numbers
		"DIR2MCP_X402_FACILITATOR_URL":     "",
	})})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		got, want any
	}{
		{cfg.Security.AllowedOrigins, []string{"http://a", "https://b:8443"}},
		{cfg.Ingest.Gitignore, false},
		{cfg.Ingest.FollowSymlinks, true},
		{cfg.Ingest.SizeCapsMB, map[string]float64{"code": 1, "data": 8, "pdf": 50}},
		{cfg.Security.SecretPatterns, []string{"a{1,2}", "b"}},
		{cfg.Ingest.Ignore, []string{"x,y", "z"}},
		{cfg.Server.MaxBodyBytes, int64(4 << 20)},
	}
	for i, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("check %d: got %#v, want %#v", i, c.got, c.want)
		}
	}
	if src.Of("ingest.size_caps_mb.pdf") != "env:DIR2MCP_INGEST_SIZE_CAPS_MB" || src.Of("server.max_body_bytes") != SourceDefault {
		t.Errorf("sources: %s %s", src.Of("ingest.size_caps_mb.pdf"), src.Of("server.max_body_bytes"))
	}
}

func TestBadEnvValueNamesVariable(t *testing.T) {
	_, _, err := Load(LoadOptions{Dir: t.TempDir(), Env: env(map[string]string{"DIR2MCP_CHUNKING_MAX_CHARS": "abc"})})
	wantConfigErr(t, err, "chunking.max_chars", "env DIR2MCP_CHUNKING_MAX_CHARS", "want an integer")
	_, _, err = Load(LoadOptions{Dir: t.TempDir(), Env: env(map[string]string{"DIR2MCP_INGEST_AUDIO_MODE": "loud"})})
	wantConfigErr(t, err, "ingest.audio.mode", "env DIR2MCP_INGEST_AUDIO_MODE", "off, auto, on")
	_, _, err = Load(LoadOptions{Dir: t.TempDir(), Env: env(map[string]string{"DIR2MCP_SECURITY_SECRET_PATTERNS": "ok,(bad"})})
	wantConfigErr(t, err, "security.secret_patterns[1]", "env DIR2MCP_SECURITY_SECRET_PATTERNS")
	_, _, err = Load(LoadOptions{Dir: t.TempDir(), Env: env(map[string]string{"DIR2MCP_INGEST_SIZE_CAPS_MB": "pdf"})})
	wantConfigErr(t, err, "ingest.size_caps_mb", "k=v")
}

func TestFlags(t *testing.T) {
	cfg, src, err := Load(LoadOptions{Dir: t.TempDir(), Env: env(nil), Flags: map[string]string{
		"x402.mode":                                       "on",
		"x402.facilitator_url":                            "https://f.example",
		"x402.route_policy.tools_call.pay_to":             "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"x402.route_policy.tools_call.prices.dir2mcp.ask": "0.01",
		"ingest.size_caps_mb.pdf":                         "40",
	}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.X402.Mode != "on" || cfg.Ingest.SizeCapsMB["pdf"] != 40 || src.Of("ingest.size_caps_mb.pdf") != SourceFlag {
		t.Errorf("flags not applied: %+v %v", cfg.X402, cfg.Ingest.SizeCapsMB)
	}
	// A map key may itself contain dots (tool names); the longest map
	// prefix wins.
	if cfg.X402.RoutePolicy.ToolsCall.Prices["dir2mcp.ask"] != "0.01" {
		t.Errorf("prices = %v", cfg.X402.RoutePolicy.ToolsCall.Prices)
	}

	_, _, err = Load(LoadOptions{Dir: t.TempDir(), Env: env(nil), Flags: map[string]string{"server.lisen": "x"}})
	wantConfigErr(t, err, "server.lisen", "unknown config key", `"server.listen"`)
	_, _, err = Load(LoadOptions{Dir: t.TempDir(), Env: env(nil), Flags: map[string]string{"mistral.api_key": "sk-123"}})
	e := wantConfigErr(t, err, "mistral.api_key", "cannot be passed as flags", "MISTRAL_API_KEY")
	if strings.Contains(e.Message, "sk-123") {
		t.Errorf("error echoes the secret: %s", e.Message)
	}
	_, _, err = Load(LoadOptions{Dir: t.TempDir(), Env: env(nil), Flags: map[string]string{"x402.mode": "maybe"}})
	wantConfigErr(t, err, "x402.mode", "flag x402.mode", "off, on, required")
}
