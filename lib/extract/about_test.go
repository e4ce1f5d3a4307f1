package extract

import (
	"slices"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

func describe(t *testing.T, src, docType, rel string) About {
	t.Helper()
	res, err := RawText([]byte(src), docType)
	if err != nil {
		t.Fatal(err)
	}
	return Describe(res, []byte(src), docType, rel)
}

func TestDescribeMarkdown(t *testing.T) {
	a := describe(t, "---\ntitle: Setup Guide\ndescription: \"How to install it.\"\ntags: [ops, install]\n---\n# Other\n\nBody.\n", record.DocMarkdown, "g.md")
	if a.Title != "Setup Guide" || a.Description != "How to install it." || !slices.Equal(a.Tags, []string{"ops", "install"}) {
		t.Errorf("front matter: %+v", a)
	}
	a = describe(t, "---\ntags:\n  - a\n  - 'b c'\n---\n<!-- note -->\n# Ledger\n\n![logo](x.png)\n\nThe **ledger** keeps [entries](e.md)\nin order.\n\nSecond paragraph.\n", record.DocMarkdown, "l.md")
	if a.Title != "Ledger" || a.Description != "The ledger keeps entries in order." || !slices.Equal(a.Tags, []string{"a", "b c"}) {
		t.Errorf("heading + paragraph: %+v", a)
	}
	long := strings.Repeat("word ", 60)
	a = describe(t, "# T\n\n"+long, record.DocMarkdown, "t.md")
	if len(a.Description) > maxDescription+len("…") || !strings.HasSuffix(a.Description, "word…") {
		t.Errorf("long description not trimmed at a word: %q", a.Description)
	}
}

func TestDescribeHTML(t *testing.T) {
	a := describe(t, `<html><head><title>Q3 &amp; Q4</title><meta content='Quarter results.' name="description"></head><body><h1>Big</h1><p>Text</p></body></html>`, record.DocHTML, "r.html")
	if a.Title != "Q3 & Q4" || a.Description != "Quarter results." {
		t.Errorf("meta: %+v", a)
	}
	a = describe(t, `<html><body><h1>Report</h1><p>First paragraph here.</p><p>Next.</p></body></html>`, record.DocHTML, "r.html")
	if a.Title != "Report" || a.Description != "First paragraph here." {
		t.Errorf("first p: %+v", a)
	}
}

func TestDescribeText(t *testing.T) {
	a := describe(t, "\nThings to do\nline two\nline three\nline four\nline five\n", record.DocText, "todo.txt")
	if a.Title != "Things to do" || a.Description != "line two line three line four" {
		t.Errorf("%+v", a)
	}
}

func TestDescribeCode(t *testing.T) {
	for _, c := range []struct{ src, rel, want string }{
		{"// Copyright 2020 X. All rights reserved.\n\n// Package ledger reconciles\n// entries.\npackage ledger\n", "l.go", "Package ledger reconciles entries."},
		{"// Copyright 2020 X.\n\npackage ledger\n", "l.go", ""},
		{"#!/usr/bin/env python\n# comment\n\"\"\"Great-circle distance\nhelpers.\"\"\"\nimport math\n", "d.py", "Great-circle distance helpers."},
		{"//! Crate docs.\n//! More.\nfn main() {}\n", "m.rs", "Crate docs. More."},
		{"/* SPDX-License-Identifier: MIT */\n/**\n * Widget helpers.\n */\nexport const x = 1\n", "w.js", "Widget helpers."},
		{"const x = 1 // not a doc\n", "w.js", ""},
	} {
		if got := describe(t, c.src, record.DocCode, c.rel).Description; got != c.want {
			t.Errorf("%s: got %q, want %q", c.rel, got, c.want)
		}
	}
}
