package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// DefaultFileName is the config file looked up in the root directory.
const DefaultFileName = ".dir2mcp.yaml"

// LoadOptions says where Load finds each configuration layer.
type LoadOptions struct {
	// Dir is the root directory (--dir); "" means ".". The default config
	// file and a relative secrets.file.path are resolved against it.
	Dir string
	// ConfigPath is the --config value. "" means <Dir>/.dir2mcp.yaml, which
	// may be absent (defaults apply). A path given here must exist; a
	// relative one is resolved against the working directory, as a shell
	// user expects of a command-line path.
	ConfigPath string
	// Env looks up environment variables; nil means os.LookupEnv.
	Env func(string) (string, bool)
	// Flags holds values from command-line flags keyed by key path
	// ("server.listen" → "127.0.0.1:0"); they override everything else.
	// Lists are comma-separated, maps "k=v,k=v"; a map entry may also be
	// set by its own path ("ingest.size_caps_mb.pdf" → "50").
	Flags map[string]string
}

// Load resolves the effective config with precedence flags > env > file >
// defaults (SPEC §16.1), then resolves credentials (SPEC §16.1.1) and
// validates the result. Every failure is an *errcode.Error with code
// CONFIG_INVALID (TLS_CONFIG_INVALID for TLS settings) whose Field is the
// offending key path and whose message names the key, where it was set
// (file line, env var or flag) and what is allowed.
func Load(opts LoadOptions) (*Config, *Sources, error) {
	lookup := opts.Env
	if lookup == nil {
		lookup = os.LookupEnv
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	cfg := Default()
	src := newSources(cfg)

	path, explicit := opts.ConfigPath, opts.ConfigPath != ""
	if !explicit {
		path = filepath.Join(dir, DefaultFileName)
	}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		src.File = path
		if err := decodeFile(data, path, cfg, src, lookup); err != nil {
			return nil, nil, err
		}
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		// No config file: defaults.
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, errcode.Wrap(errcode.ConfigInvalid, err,
			"config file %s does not exist; check --config, or run: dir2mcp config init", path)
	default:
		return nil, nil, errcode.Wrap(errcode.ConfigInvalid, err, "cannot read config file %s: %v", path, unwrapPathError(err))
	}

	if err := applyEnv(cfg, src, lookup); err != nil {
		return nil, nil, err
	}
	if err := applyFlags(cfg, src, opts.Flags); err != nil {
		return nil, nil, err
	}
	normalizeX402(cfg, src)
	if err := validate(cfg, src); err != nil {
		return nil, nil, err
	}
	if err := resolveSecrets(cfg, src, dir, lookup); err != nil {
		return nil, nil, err
	}
	return cfg, src, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// resolveSecrets fills every Secret's Value and Source. Per key: the
// canonical env var (MISTRAL_API_KEY, ELEVENLABS_API_KEY) wins; then the
// reference written in the config (${VAR} reads VAR; a literal is a
// plaintext secret and draws a warning); then, for secrets.provider auto
// or file, the secrets file. Provider keychain is refused: this build has
// no OS keychain access.
func resolveSecrets(cfg *Config, src *Sources, dir string, lookup lookupFunc) error {
	provider := cfg.Secrets.Provider
	if provider == "keychain" {
		return &errcode.Error{Code: errcode.ConfigInvalid, Field: "secrets.provider", Message: fmt.Sprintf(
			"secrets.provider: keychain is not supported by this build (no OS keychain access) (%s); use file (a 0600 KEY=value file at secrets.file.path) or env (MISTRAL_API_KEY, ELEVENLABS_API_KEY)",
			src.describe("secrets.provider"))}
	}
	storePath := cfg.Secrets.File.Path
	if !filepath.IsAbs(storePath) {
		storePath = filepath.Join(dir, storePath)
	}
	var store map[string]string
	loaded := false
	loadStore := func() error {
		if loaded {
			return nil
		}
		loaded = true
		m, err := ReadSecretFile(storePath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if provider == "file" {
				src.warn("secrets.file.path: %s does not exist; no credentials read from it (run: dir2mcp config init)", storePath)
			}
			return nil
		case err != nil:
			return err
		}
		store = m
		return nil
	}

	for i := range leaves {
		l := &leaves[i]
		if l.kind != kindSecret {
			continue
		}
		s := l.value(cfg).Addr().Interface().(*Secret)
		ref := s.Ref
		*s = Secret{Ref: ref}
		want := l.env
		if ref != "" {
			x, err := expand(ref, lookup)
			if err != nil {
				return &errcode.Error{Code: errcode.ConfigInvalid, Field: l.path,
					Message: fmt.Sprintf("%s: bad ${...} reference (%s)", l.path, src.describe(l.path))}
			}
			if !x.literal && len(x.refs) == 1 {
				want = x.refs[0]
				s.Value, s.Source = x.value, "env:"+want
			} else {
				s.Value, s.Source = x.value, "config"
				src.warn("%s: plaintext secret in config file (%s); prefer ${%s} with the value in the environment, or secrets.provider file",
					l.path, src.describe(l.path), l.env)
			}
		}
		if v, ok := lookup(l.env); ok && v != "" {
			s.Value, s.Source = v, "env:"+l.env
			src.set(l.path, s.Source, 0)
			continue
		}
		if s.IsSet() || (provider != "auto" && provider != "file") {
			continue
		}
		if err := loadStore(); err != nil {
			return err
		}
		for _, name := range []string{want, l.env} {
			if v := store[name]; v != "" {
				s.Value, s.Source = v, "file:"+cfg.Secrets.File.Path
				break
			}
		}
	}
	return nil
}
