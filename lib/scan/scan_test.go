package scan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

func TestWalkClassifiesAndIgnores(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"main.go":                   "package main\n",
		"README.md":                 "# Title\n",
		"docs/guide.txt":            "plain text\n",
		"data/config.yaml":          "a: 1\n",
		"web/index.html":            "<!doctype html><p>hi</p>",
		"bin/tool":                  "#!/usr/bin/env python3\nprint('x')\n",
		"Makefile":                  "all:\n\techo\n",
		"LICENSE":                   "MIT License\n",
		".git/config":               "[core]\n",
		"node_modules/x/index.js":   "module.exports = 1\n",
		"build/out.js":              "x()\n",
		"pkg/dist/bundle.js":        "x()\n",
		".venv/lib/site.py":         "x = 1\n",
		".dir2mcp/meta.sqlite":      "not really sqlite",
		"src/__pycache__/m.pyc":     "\x00\x01",
		".dir2mcp.yaml":             "mistral:\n  api_key: plain\n",
		"nested/.dir2mcp.yaml":      "this one is a user file\n",
		"nested/.idea/workspace.xm": "<x/>",
	})
	r := walk(t, Options{Root: root})
	want := map[string][2]string{
		"main.go":              {record.DocCode, "go"},
		"README.md":            {record.DocMarkdown, ""},
		"docs/guide.txt":       {record.DocText, ""},
		"data/config.yaml":     {record.DocData, ""},
		"web/index.html":       {record.DocHTML, ""},
		"bin/tool":             {record.DocCode, "python"},
		"Makefile":             {record.DocCode, "make"},
		"LICENSE":              {record.DocText, ""},
		"nested/.dir2mcp.yaml": {record.DocData, ""},
	}
	if len(r.docs) != len(want) {
		t.Errorf("got records %v, want %d", r.paths(), len(want))
	}
	for rel, w := range want {
		d, ok := r.by[rel]
		if !ok {
			t.Errorf("no record for %s", rel)
			continue
		}
		if d.DocType != w[0] || d.Lang != w[1] {
			t.Errorf("%s: doc_type %q lang %q, want %q %q", rel, d.DocType, d.Lang, w[0], w[1])
		}
		if d.Status != record.StatusOK || d.Change != record.ChangeNew || d.Type != record.TypeDocument || d.V == "" {
			t.Errorf("%s: status %q change %q type %q v %q", rel, d.Status, d.Change, d.Type, d.V)
		}
		if d.Root != root || d.SourceType != record.SourceFile {
			t.Errorf("%s: root %q source_type %q", rel, d.Root, d.SourceType)
		}
		content, _ := os.ReadFile(filepath.Join(root, rel))
		sum := sha256.Sum256(content)
		if d.ContentHash != "sha256:"+hex.EncodeToString(sum[:]) || d.SizeBytes != int64(len(content)) {
			t.Errorf("%s: hash %q size %d do not describe the file", rel, d.ContentHash, d.SizeBytes)
		}
		fi, _ := os.Stat(filepath.Join(root, rel))
		if d.MtimeNs != fi.ModTime().UnixNano() || d.MtimeUnix != fi.ModTime().Unix() {
			t.Errorf("%s: mtime %d/%d, want %d", rel, d.MtimeNs, d.MtimeUnix, fi.ModTime().UnixNano())
		}
	}
	if r.stats.Scanned != len(want) || r.stats.New != len(want) || r.stats.Skipped != 0 {
		t.Errorf("stats %+v", r.stats)
	}
	if r.stats.Ignored < 8 {
		t.Errorf("stats.Ignored = %d, want the ignored dirs and files counted", r.stats.Ignored)
	}
}

func TestWalkOrderIsWalkDirOrder(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		// Names chosen so that per-directory order differs from plain
		// sorted paths ("a-b" < "a.txt" < "a/x").
		files[fmt.Sprintf("a/f%02d.go", i)] = strings.Repeat("x", i*997%5000)
		files[fmt.Sprintf("a-b/g%02d.txt", i)] = "text"
		files[fmt.Sprintf("a.d/%02d/deep/h.md", i)] = "# h"
	}
	files["a.txt"] = "t"
	files["Z.go"] = "package z"
	writeTree(t, root, files)

	var want []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			want = append(want, filepath.ToSlash(rel))
		}
		return nil
	})
	for _, workers := range []int{1, 2, 7} {
		for run := 0; run < 3; run++ {
			r := walk(t, Options{Root: root, Workers: workers})
			if got := r.paths(); !reflect.DeepEqual(got, want) {
				t.Fatalf("workers=%d run %d: order differs\n got %v\nwant %v", workers, run, got, want)
			}
		}
	}
}

func TestWalkRootErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	writeTree(t, dir, map[string]string{"f.txt": "x"})
	for _, root := range []string{filepath.Join(dir, "missing"), file, ""} {
		_, err := Walk(context.Background(), Options{Root: root}, func(record.Document) error { return nil })
		if errcode.Of(err) != errcode.RootInaccessible {
			t.Errorf("Walk(%q) error = %v, want ROOT_INACCESSIBLE", root, err)
		}
	}
}

func TestWalkRelativeRoot(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.go": "package a"})
	t.Chdir(root)
	r := walk(t, Options{Root: "."})
	if d, ok := r.by["a.go"]; !ok || d.Root != root {
		t.Errorf("records %v; root %q, want %q", r.paths(), d.Root, root)
	}
}

func TestWalkEmitErrorStops(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 200; i++ {
		files[fmt.Sprintf("f%03d.txt", i)] = "x"
	}
	writeTree(t, root, files)
	boom := errors.New("disk full")
	n := 0
	st, err := Walk(context.Background(), Options{Root: root}, func(record.Document) error {
		n++
		if n == 5 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the emit error", err)
	}
	if n != 5 || st.Scanned != 5 {
		t.Errorf("emit called %d times, stats %+v; want a stop at the failing record", n, st)
	}
}

func TestWalkCancel(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 200; i++ {
		files[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = "x"
	}
	writeTree(t, root, files)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := Walk(ctx, Options{Root: root}, func(record.Document) error {
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n > 3 {
		t.Errorf("emit called %d times after cancel", n-3)
	}
}

func TestWalkSizeCaps(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"big.go":     strings.Repeat("x", 2000),
		"small.go":   "package s",
		"big.md":     strings.Repeat("y ", 1000),
		"noext-big":  strings.Repeat("z", 2000),
		"photo.png":  "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 5000),
		"fine.png":   "\x89PNG\r\n\x1a\n",
		"script-big": "#!/bin/sh\n" + strings.Repeat("echo\n", 500),
	})
	caps := map[string]int64{record.DocCode: 1000, record.DocImage: 100, record.DocText: 1500}
	r := walk(t, Options{Root: root, SizeCaps: func(dt string) int64 { return caps[dt] }})
	for _, rel := range []string{"big.go", "photo.png", "noext-big", "script-big"} {
		d := r.by[rel]
		if d.Status != record.StatusSkipped || d.Code != string(errcode.FileTooLarge) || d.ContentHash != "" {
			t.Errorf("%s: status %q code %q hash %q; want skipped FILE_TOO_LARGE without a hash", rel, d.Status, d.Code, d.ContentHash)
		}
		if !strings.Contains(d.Reason, "cap for "+d.DocType) {
			t.Errorf("%s: reason %q does not name the cap", rel, d.Reason)
		}
	}
	if d := r.by["big.go"]; d.Reason != "2.0 KB exceeds the 1000 B cap for code" {
		t.Errorf("reason %q", d.Reason)
	}
	if d := r.by["script-big"]; d.DocType != record.DocCode || d.Lang != "shell" {
		t.Errorf("script-big classified %q/%q before the cap applied, want code/shell", d.DocType, d.Lang)
	}
	for _, rel := range []string{"small.go", "big.md", "fine.png"} {
		if d := r.by[rel]; d.Status != record.StatusOK || d.ContentHash == "" {
			t.Errorf("%s: status %q hash %q, want ok with a hash (no cap / under cap)", rel, d.Status, d.ContentHash)
		}
	}
	if r.stats.Skipped != 4 {
		t.Errorf("stats.Skipped = %d, want 4", r.stats.Skipped)
	}
}

func TestWalkBinary(t *testing.T) {
	root := t.TempDir()
	utf16 := "\xff\xfeh\x00i\x00\n\x00"
	writeTree(t, root, map[string]string{
		"lib.so":        "\x7fELF\x00\x00",
		"blob":          "\x00\x01\x02\x03binary",
		"fake.txt":      "text?\x00\x00\x00",
		"utf16.txt":     utf16,
		"utf16-noext":   utf16,
		"doc-noext":     "%PDF-1.7\n\x00\xff binary stream",
		"archive-noext": "PK\x03\x04\x14\x00\x00\x00",
		"latin1.txt":    "caf\xe9 cr\xe8me br\xfbl\xe9e is a dessert made of cream and sugar",
		"empty.txt":     "",
		"empty":         "",
	})
	r := walk(t, Options{Root: root})
	for rel, reason := range map[string]string{"lib.so": "binary file type (.so)", "blob": "content is binary", "fake.txt": "content is binary"} {
		d := r.by[rel]
		if d.Status != record.StatusSkipped || d.Code != string(errcode.BinarySkipped) || d.DocType != record.DocBinaryIgnored || d.Reason != reason {
			t.Errorf("%s: %q %q %q %q; want skipped BINARY_SKIPPED binary_ignored %q", rel, d.Status, d.Code, d.DocType, d.Reason, reason)
		}
	}
	for rel, dt := range map[string]string{"utf16.txt": record.DocText, "utf16-noext": record.DocText, "doc-noext": record.DocPDF,
		"archive-noext": record.DocArchive, "latin1.txt": record.DocText, "empty.txt": record.DocText, "empty": record.DocText} {
		if d := r.by[rel]; d.Status != record.StatusOK || d.DocType != dt {
			t.Errorf("%s: status %q doc_type %q, want ok %q", rel, d.Status, d.DocType, dt)
		}
	}
	if r.by["lib.so"].ContentHash != "" {
		t.Error("a binary skipped by extension was read")
	}
}

func TestWalkSecretsAndPathExcludes(t *testing.T) {
	root := t.TempDir()
	key := "AKIAIOSFODNN7EXAMPLE"
	writeTree(t, root, map[string]string{
		"config/aws.ini":  "[default]\naws_access_key_id = " + key + "\n",
		"app/.env":        "DB=postgres\n",
		"certs/site.pem":  "-----BEGIN CERTIFICATE-----\n",
		"photo.png":       "\x89PNG\r\n\x1a\n" + key, // secrets are checked in text only
		"main.go":         "package main\n",
		"private/notes":   "hello",
		"private/x/y.txt": "hello",
	})
	eng, err := exclude.New(append(append([]string{}, exclude.DefaultPathExcludes...), "private/"), exclude.DefaultSecretPatterns)
	if err != nil {
		t.Fatal(err)
	}
	r := walk(t, Options{Root: root, Exclude: eng})
	d := r.by["config/aws.ini"]
	if d.Status != record.StatusSkipped || d.Code != string(errcode.SecretExcluded) || d.Reason != "content matches security.secret_patterns[0] (aws_access_key_id)" {
		t.Errorf("aws.ini: %q %q %q", d.Status, d.Code, d.Reason)
	}
	line, _ := json.Marshal(d)
	if strings.Contains(string(line), key) || strings.Contains(string(line), "IOSFODNN") {
		t.Errorf("record leaks the secret: %s", line)
	}
	for rel, pat := range map[string]string{"app/.env": "**/.env", "certs/site.pem": "**/*.pem"} {
		d := r.by[rel]
		if d.Status != record.StatusSkipped || d.Code != string(errcode.PathExcluded) || !strings.Contains(d.Reason, fmt.Sprintf("%q", pat)) || d.ContentHash != "" {
			t.Errorf("%s: %q %q %q hash %q; want skipped PATH_EXCLUDED naming %q, unread", rel, d.Status, d.Code, d.Reason, d.ContentHash, pat)
		}
	}
	if d := r.by["photo.png"]; d.Status != record.StatusOK {
		t.Errorf("photo.png: %q %q", d.Status, d.Reason)
	}
	for _, rel := range []string{"private/notes", "private/x/y.txt"} {
		if _, ok := r.by[rel]; ok {
			t.Errorf("%s: the excluded directory was walked", rel)
		}
	}
}

func TestWalkStateDir(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"state/meta.sqlite":  "x",
		"state/secret.token": "tok",
		"a/state/kept.txt":   "a user dir that happens to be named state",
		"main.go":            "package main",
	})
	r := walk(t, Options{Root: root, StateDir: filepath.Join(root, "state")})
	if got := r.paths(); !reflect.DeepEqual(got, []string{"a/state/kept.txt", "main.go"}) {
		t.Errorf("records %v", got)
	}
	// A state dir that is the root, or holds it, would index its own
	// secrets (secret.token).
	for _, state := range []string{root, filepath.Dir(root)} {
		_, err := tryWalk(Options{Root: filepath.Join(root, "a"), StateDir: state})
		if state == root {
			_, err = tryWalk(Options{Root: root, StateDir: state})
		}
		if errcode.Of(err) != errcode.ConfigInvalid {
			t.Errorf("state dir %s: err %v, want CONFIG_INVALID", state, err)
		}
	}
}

func TestWalkInvalidUTF8Name(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"ok.txt": "fine"})
	if err := os.WriteFile(filepath.Join(root, "bad\xff\xfe.txt"), []byte("x"), 0o644); err != nil {
		t.Skipf("file system rejects the name: %v", err)
	}
	r := walk(t, Options{Root: root})
	if got := r.paths(); !reflect.DeepEqual(got, []string{"ok.txt"}) {
		t.Errorf("records %v", got)
	}
	if len(r.warns) != 1 || !strings.Contains(r.warns[0], "not valid UTF-8") {
		t.Errorf("warnings %q", r.warns)
	}
	line, _ := json.Marshal(r.docs)
	if !json.Valid(line) {
		t.Error("records are not valid JSON")
	}
}

func TestWalkOddNames(t *testing.T) {
	root := t.TempDir()
	names := []string{"with space.txt", "new\nline.txt", "ünïcödé.md", "e\u0301.txt", "back\\slash.txt", "-dash.txt", "#hash.txt"}
	files := map[string]string{}
	for _, n := range names {
		files[n] = n
	}
	writeTree(t, root, files)
	r := walk(t, Options{Root: root})
	for _, n := range names {
		d, ok := r.by[n]
		if !ok || d.Status != record.StatusOK {
			t.Errorf("%q: record %v", n, d)
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(d.RelPath))); err != nil {
			t.Errorf("%q: rel_path does not reopen the file: %v", n, err)
		}
	}
}
