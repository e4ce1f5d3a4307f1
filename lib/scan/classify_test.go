package scan

import (
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

func TestClassify(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	tests := []struct {
		name, content string
		docType, lang string
	}{
		// By extension.
		{"main.go", "package main", record.DocCode, "go"},
		{"x.PY", "print(1)", record.DocCode, "python"},
		{"app.tsx", "export {}", record.DocCode, "typescript"},
		{"lib.rs", "fn main(){}", record.DocCode, "rust"},
		{"a.hpp", "#pragma once", record.DocCode, "cpp"},
		{"asm_amd64.s", "TEXT ·f(SB)", record.DocCode, "assembly"},
		{"start.S", "mov", record.DocCode, "assembly"},
		{"api.proto", "syntax = \"proto3\";", record.DocCode, "protobuf"},
		{"q.sql", "select 1", record.DocCode, "sql"},
		{"README.md", "# x", record.DocMarkdown, ""},
		{"page.HTML", "<p>", record.DocHTML, ""},
		{"c.json", "{}", record.DocData, ""},
		{"c.yml", "a: 1", record.DocData, ""},
		{"icon.svg", "<svg/>", record.DocData, ""},
		{"notes.txt", "hello", record.DocText, ""},
		{"doc.pdf", "%PDF-1.4", record.DocPDF, ""},
		{"photo.JPG", "\xff\xd8\xff\xe0", record.DocImage, ""},
		{"song.mp3", "ID3", record.DocAudio, ""},
		{"bundle.tar.gz", "\x1f\x8b", record.DocArchive, ""},
		{"app.exe", "MZ", record.DocBinaryIgnored, ""},
		{"clip.mp4", "\x00\x00\x00\x18ftypmp42", record.DocBinaryIgnored, ""},
		// By name.
		{"Makefile", "all:", record.DocCode, "make"},
		{"Dockerfile", "FROM x", record.DocCode, "dockerfile"},
		{"Dockerfile.dev", "FROM x", record.DocCode, "dockerfile"},
		{"CMakeLists.txt", "project(x)", record.DocCode, "cmake"},
		{"go.mod", "module x", record.DocData, ""},
		{"go.sum", "x v1 h1:abc=", record.DocData, ""},
		{"LICENSE", "MIT", record.DocText, ""},
		{"LICENSE-APACHE", "Apache", record.DocText, ""},
		{"COPYING.LESSER", "GPL", record.DocText, ""},
		{"readme", "hello", record.DocText, ""},
		{".bashrc", "alias x=y", record.DocCode, "shell"},
		{".gitignore", "*.o", record.DocText, ""},
		// By content.
		{"run", "#!/bin/bash\necho", record.DocCode, "shell"},
		{"tool", "#!/usr/bin/env python3.11\n", record.DocCode, "python"},
		{"srv", "#!/usr/bin/env -S node --harmony\n", record.DocCode, "javascript"},
		{"make.rc", "#!/bin/rc -e\n", record.DocCode, "shell"},
		{"weird", "#!/opt/unknown-interp\n", record.DocText, ""},
		{"page", "<!DOCTYPE html><html>", record.DocHTML, ""},
		{"feed", "<?xml version=\"1.0\"?><a/>", record.DocData, ""},
		{"data.bin2", png, record.DocImage, ""},
		{"archive.dat", "PK\x03\x04\x14\x00", record.DocArchive, ""},
		{"tarball", strings.Repeat("\x00", 257) + "ustar\x0000", record.DocArchive, ""},
		{"sound", "RIFF\x24\x00\x00\x00WAVEfmt ", record.DocAudio, ""},
		{"voice", "OggS\x00\x02", record.DocAudio, ""},
		{"lossless", "fLaC\x00\x00\x00\x22", record.DocAudio, ""},
		{"memo", "\x00\x00\x00\x20ftypM4A \x00", record.DocAudio, ""},
		{"pic", "RIFF\x24\x00\x00\x00WEBPVP8 ", record.DocImage, ""},
		{"anim", "GIF89a\x01\x00", record.DocImage, ""},
		{"elf", "\x7fELF\x02\x01\x01\x00\x00", record.DocBinaryIgnored, ""},
		{"empty", "", record.DocText, ""},
		// Text-like extension with binary content.
		{"fake.txt", "hi\x00\x00\x00", record.DocBinaryIgnored, ""},
		{"really-a.txt", "%PDF-1.7\n\x00\xe2\xe3", record.DocPDF, ""},
		// Text encodings.
		{"utf16.txt", "\xff\xfeh\x00i\x00", record.DocText, ""},
		{"utf16be", "\xfe\xff\x00h\x00i", record.DocText, ""},
		{"bom.go", "\xef\xbb\xbfpackage x", record.DocCode, "go"},
		{"latin1", "caf\xe9 au lait, cr\xe8me, na\xefve, r\xe9sum\xe9 of many words", record.DocText, ""},
		{"ansi.log", "\x1b[31mred\x1b[0m\n", record.DocText, ""},
		{"noise", "\x01\x02\x03\x04\x05\x06\x07\x0e\x0f\x10abc", record.DocBinaryIgnored, ""},
	}
	for _, tt := range tests {
		dt, lang := Classify(tt.name, []byte(tt.content))
		if dt != tt.docType || lang != tt.lang {
			t.Errorf("Classify(%q) = %q, %q; want %q, %q", tt.name, dt, lang, tt.docType, tt.lang)
		}
	}
}

func TestLooksBinaryIgnoresRuneCutBySniffWindow(t *testing.T) {
	head := []byte(strings.Repeat("é", SniffLen/2))
	head = head[:SniffLen-1] // cut in the middle of the last rune
	head = append(head, 0xC3)
	head = head[:SniffLen]
	if looksBinary(head) {
		t.Error("UTF-8 text cut by the sniff window looks binary")
	}
	if !looksBinary([]byte(strings.Repeat("\xfd\xfe\xff", 100))) {
		t.Error("invalid UTF-8 soup does not look binary")
	}
}
