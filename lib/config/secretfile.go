package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// ReadSecretFile reads an env-style secrets file: KEY=value lines, with
// blank lines, "#" comments, an optional "export " prefix and optionally
// quoted values. It refuses a file that group or others may access (on
// Unix) and never puts a value in an error message. A missing file yields
// an error satisfying errors.Is(err, fs.ErrNotExist).
func ReadSecretFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, errcode.Wrap(errcode.ConfigInvalid, err, "secrets file %s: %v", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, errcode.Wrap(errcode.ConfigInvalid, err, "secrets file %s: %v", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, errcode.FieldError(errcode.ConfigInvalid, "secrets.file.path", "secrets file %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return nil, errcode.FieldError(errcode.ConfigInvalid, "secrets.file.path",
			"secrets file %s has mode %04o and is readable by group or others; refusing to use it (run: chmod 600 %s)", path, perm, path)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || !validEnvName(k) {
			return nil, errcode.FieldError(errcode.ConfigInvalid, "secrets.file.path",
				"secrets file %s:%d: want KEY=value with KEY made of letters, digits and _", path, n)
		}
		v, err := unquoteSecret(strings.TrimSpace(v))
		if err != nil {
			return nil, errcode.FieldError(errcode.ConfigInvalid, "secrets.file.path",
				"secrets file %s:%d: %s: badly quoted value", path, n, k)
		}
		out[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, errcode.Wrap(errcode.ConfigInvalid, err, "secrets file %s: %v", path, err)
	}
	return out, nil
}

func unquoteSecret(v string) (string, error) {
	if len(v) >= 2 {
		switch {
		case v[0] == '"' && v[len(v)-1] == '"':
			return strconv.Unquote(v)
		case v[0] == '\'' && v[len(v)-1] == '\'':
			return v[1 : len(v)-1], nil
		}
	}
	if strings.HasPrefix(v, `"`) || strings.HasPrefix(v, `'`) {
		return "", errors.New("unterminated quote")
	}
	return v, nil
}

// WriteSecretFile atomically writes kv as a secrets file readable by
// ReadSecretFile, with mode 0600, keys sorted. Callers merge with the
// existing contents themselves.
func WriteSecretFile(path string, kv map[string]string) error {
	var b bytes.Buffer
	b.WriteString("# dir2mcp secrets (KEY=value); keep this file mode 0600\n")
	for _, k := range sortedKeys(kv) {
		if !validEnvName(k) {
			return errcode.New(errcode.InvalidField, "secret name %q is not a valid variable name", k)
		}
		v := kv[k]
		if strings.ContainsAny(v, " \t\r\n\"'#\\") {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(&b, "%s=%s\n", k, v)
	}
	return writeFileAtomic(path, b.Bytes(), 0o600)
}
