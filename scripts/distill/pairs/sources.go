package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// source is one npm package or crate the pairs are read from.
type source struct {
	name    string // npm package name or crate name
	version string
	licence string
	short   string // path prefix of its CodeText (the name's last element)
	sum     string // crates: SHA-256 of the .deb
	deb     string // crates: Debian package name
	skip    string // npm: a path prefix left out (held out for testdata/embed/pairs.json)
	only    string // npm: the path prefix read (for the held-out lists)
	raw     bool   // give code pairs' raw declarations (pair.Raw)
}

// readSources parses a pinned list of npm packages (`name version
// licence [skip=PATH-PREFIX | only=PATH-PREFIX]`) or Debian crate packages (`librust-NAME-dev
// version sha256 licence`) per line; blank lines and #-comments are
// ignored.
func readSources(name string, crates bool) ([]source, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := 3
	if crates {
		want = 4
	}
	var out []source
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fs := strings.Fields(line)
		if len(fs) == 0 {
			continue
		}
		skip, only := "", ""
		if !crates && len(fs) == want+1 {
			if v, ok := strings.CutPrefix(fs[want], "skip="); ok {
				skip, fs = v, fs[:want]
			} else if v, ok := strings.CutPrefix(fs[want], "only="); ok {
				only, fs = v, fs[:want]
			}
		}
		if len(fs) != want {
			return nil, fmt.Errorf("%s:%d: want %d fields", name, n, want)
		}
		s := source{name: fs[0], version: fs[1], licence: fs[len(fs)-1], skip: skip, only: only}
		s.short = path.Base(s.name)
		if crates {
			if !strings.HasPrefix(s.name, "librust-") || !strings.HasSuffix(s.name, "-dev") || len(fs[2]) != 64 {
				return nil, fmt.Errorf("%s:%d: want `librust-NAME-dev version sha256 licence`", name, n)
			}
			s.deb, s.sum = s.name, fs[2]
			s.name = strings.TrimSuffix(strings.TrimPrefix(s.name, "librust-"), "-dev")
			s.short = s.name
		}
		if permissive[s.licence] == nil {
			return nil, fmt.Errorf("%s:%d: licence %q is not one of %s", name, n, s.licence, permissiveNames)
		}
		if seen[s.name] {
			return nil, fmt.Errorf("%s:%d: %s listed twice", name, n, s.name)
		}
		seen[s.name] = true
		out = append(out, s)
	}
	return out, sc.Err()
}

// npmDir returns the installed directory of an npm package under
// nodeModules after checking its version and licence.
func npmDir(nodeModules string, s source) (string, error) {
	dir := filepath.Join(nodeModules, filepath.FromSlash(s.name))
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("npm package %s is not installed (run `make -C scripts/distill deps`): %v", s.name, err)
	}
	var pj struct {
		Version string `json:"version"`
		License any    `json:"license"`
	}
	if err := json.Unmarshal(b, &pj); err != nil {
		return "", fmt.Errorf("%s/package.json: %v", s.name, err)
	}
	if pj.Version != s.version {
		return "", fmt.Errorf("npm package %s is %s, the list pins %s (run `make -C scripts/distill deps`)", s.name, pj.Version, s.version)
	}
	if lic, _ := pj.License.(string); lic != s.licence {
		return "", fmt.Errorf("npm package %s declares licence %v, the list says %s", s.name, pj.License, s.licence)
	}
	return dir, checkLicenceText(dir, s.name+"@"+s.version, s.licence, false)
}

// crateDir returns the source directory of a crate packaged by Debian,
// extracted under cache from the .deb that `apt-get download NAME=VERSION`
// fetches (unless fetch is false); the .deb's SHA-256 must match the list.
func crateDir(cache string, s source, fetch bool) (string, error) {
	root := filepath.Join(cache, s.deb+"_"+s.version)
	src := filepath.Join(root, "usr", "share", "cargo", "registry")
	if _, err := os.Stat(filepath.Join(root, ".ok")); err != nil {
		if err := extractDeb(cache, root, s, fetch); err != nil {
			return "", err
		}
	}
	entries, err := os.ReadDir(src)
	if err != nil || len(entries) != 1 {
		return "", fmt.Errorf("%s: want one crate under %s (%v)", s.deb, src, err)
	}
	dir := filepath.Join(src, entries[0].Name())
	return dir, checkLicenceText(dir, s.deb+"="+s.version, s.licence, true)
}

// extractDeb fetches s's .deb into cache (apt-get download), checks its
// hash and unpacks it into root (dpkg-deb -x).
func extractDeb(cache, root string, s source, fetch bool) error {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	matches, _ := filepath.Glob(filepath.Join(cache, s.deb+"_"+strings.ReplaceAll(s.version, ":", "%3a")+"_*.deb"))
	if len(matches) == 0 {
		if !fetch {
			return fmt.Errorf("%s=%s is not in %s (run `make -C scripts/distill deps`)", s.deb, s.version, cache)
		}
		cmd := exec.Command("apt-get", "download", "-q", s.deb+"="+s.version)
		cmd.Dir = cache
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get download %s=%s (needs Debian's package lists: apt-get update): %v\n%s", s.deb, s.version, err, out)
		}
		matches, _ = filepath.Glob(filepath.Join(cache, s.deb+"_*.deb"))
		if len(matches) != 1 {
			return fmt.Errorf("apt-get download %s=%s: no single .deb in %s", s.deb, s.version, cache)
		}
	}
	f, err := os.Open(matches[0])
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != s.sum {
		return fmt.Errorf("%s: SHA-256 %s, the list pins %s", matches[0], got, s.sum)
	}
	os.RemoveAll(root)
	if out, err := exec.Command("dpkg-deb", "-x", matches[0], root).CombinedOutput(); err != nil {
		return fmt.Errorf("dpkg-deb -x %s: %v\n%s", matches[0], err, out)
	}
	return os.WriteFile(filepath.Join(root, ".ok"), nil, 0o644)
}

var cargoLicence = regexp.MustCompile(`(?m)^license\s*=\s*"([^"]*)"`)

// checkLicenceText makes sure a licence file at dir's root reads as the
// declared licence; for a crate without one, its Cargo.toml licence
// expression must name it.
func checkLicenceText(dir, what, licence string, crate bool) error {
	err := checkLicence(dir, module{Path: what, Licence: licence})
	if err == nil || !crate {
		return err
	}
	b, rerr := os.ReadFile(filepath.Join(dir, "Cargo.toml"))
	if rerr != nil {
		return err
	}
	if m := cargoLicence.FindSubmatch(b); m != nil {
		for _, id := range regexp.MustCompile(`[A-Za-z0-9.-]+`).FindAllString(string(m[1]), -1) {
			if id == licence {
				return nil
			}
		}
	}
	return err
}

// relSlash is p relative to dir with forward slashes.
func relSlash(dir, p string) string {
	rel, _ := filepath.Rel(dir, p)
	return filepath.ToSlash(rel)
}
