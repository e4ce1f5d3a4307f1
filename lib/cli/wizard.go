package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// wizard is the interactive `dir2mcp config init` (SPEC §2.1): it asks
// for the providers and keys, writes .dir2mcp.yaml (keys referenced as
// ${VAR}, never written into it) and stores the keys per secrets.provider.
type wizard struct {
	p       prompter
	out     io.Writer
	root    string // the root directory: relative secret file paths start here
	cfgPath string
}

// choose asks until the answer is one of allowed.
func (w *wizard) choose(label, def string, allowed []string) (string, error) {
	for range 3 {
		v, err := w.p.Line(label+" ("+strings.Join(allowed, "|")+")", def)
		if err != nil {
			return "", err
		}
		if slices.Contains(allowed, v) {
			return v, nil
		}
		fmt.Fprintf(w.out, "  %q is not one of %s\n", v, strings.Join(allowed, ", "))
	}
	return "", errcode.New(errcode.ConfigInvalid, "%s: no valid answer given", label)
}

func (w *wizard) run() error {
	fmt.Fprintf(w.out, "dir2mcp setup: writes %s. Press Enter to keep a default; keys are never shown or written into the config file.\n\n", w.cfgPath)
	keys := map[string]string{}
	mk, err := w.p.Secret("Mistral API key for embeddings, OCR, transcription and answers (input hidden; Enter to stay offline): ")
	if err != nil {
		return err
	}
	if mk != "" {
		keys["MISTRAL_API_KEY"] = mk
	}
	values := map[string]string{}
	stt, err := w.choose("Speech-to-text provider for audio", "mistral", config.STTProviders)
	if err != nil {
		return err
	}
	values["stt.provider"] = stt
	if stt == "elevenlabs" {
		ek, err := w.p.Secret("ElevenLabs API key (input hidden; Enter to skip): ")
		if err != nil {
			return err
		}
		if ek != "" {
			keys["ELEVENLABS_API_KEY"] = ek
		}
	}
	if values["embed.provider"], err = w.choose("Embeddings (auto: Mistral with a key, else offline)", "auto", config.EmbedProviders); err != nil {
		return err
	}
	if values["ingest.pdf.mode"], err = w.choose("PDFs (auto: text layer, OCR only for scanned pages; ocr: OCR every page with Mistral)", "ocr", config.PDFModes); err != nil {
		return err
	}
	store := "env"
	if len(keys) > 0 {
		if store, err = w.choose("Keep the API keys in (file: "+config.Default().Secrets.File.Path+", mode 0600; env: you export them yourself)", "file", []string{"file", "env"}); err != nil {
			return err
		}
	}
	values["secrets.provider"] = map[string]string{"file": "file", "env": "auto"}[store]
	y, err := config.ExampleYAMLWith(values)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(w.cfgPath, []byte(y), 0o644); err != nil {
		return errcode.Wrap(errcode.ConfigInvalid, err, "write %s: %v", w.cfgPath, err)
	}
	fmt.Fprintf(w.out, "\nWrote %s.\n", w.cfgPath)
	names := sortedNames(keys)
	switch {
	case len(keys) == 0:
		fmt.Fprintln(w.out, "No API key given: dir2mcp runs offline. Set MISTRAL_API_KEY later to enable providers.")
	case store == "file":
		path, err := w.storeKeys(keys)
		if err != nil {
			return err
		}
		fmt.Fprintf(w.out, "Stored %s in %s (mode 0600).\n", strings.Join(names, ", "), path)
	default:
		fmt.Fprintf(w.out, "Not stored: export %s in the environment dir2mcp runs in.\n", strings.Join(names, ", "))
	}
	fmt.Fprintln(w.out, "Next: dir2mcp up")
	return nil
}

// storeKeys merges keys into the secrets file (secrets.file.path, relative
// to the root) with mode 0600 and returns its path.
func (w *wizard) storeKeys(keys map[string]string) (string, error) {
	path := config.Default().Secrets.File.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.root, path)
	}
	have, err := config.ReadSecretFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		have = map[string]string{}
	case err != nil:
		return "", err
	}
	for k, v := range keys {
		have[k] = v
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", errcode.Wrap(errcode.ConfigInvalid, err, "create %s: %v", filepath.Dir(path), err)
	}
	if err := config.WriteSecretFile(path, have); err != nil {
		return "", err
	}
	return path, nil
}

func sortedNames(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
