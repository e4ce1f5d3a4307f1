package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// module is one line of the pinned list.
type module struct {
	Path, Version, Sum, Licence string
}

// permissive are the licences a module may have for its text to enter the
// table fit, with a phrase of the licence text that identifies each.
var permissive = map[string]func(string) bool{
	"MIT": func(t string) bool { return strings.Contains(t, "Permission is hereby granted, free of charge") },
	"BSD-2-Clause": func(t string) bool {
		return strings.Contains(t, "Redistribution and use in source and binary forms") && !bsd3.MatchString(t)
	},
	"BSD-3-Clause": func(t string) bool {
		return strings.Contains(t, "Redistribution and use in source and binary forms") && bsd3.MatchString(t)
	},
	"Apache-2.0": func(t string) bool {
		return strings.Contains(t, "Apache License") && strings.Contains(t, "Version 2.0")
	},
	"MPL-2.0": func(t string) bool {
		return strings.Contains(t, "Mozilla Public License") && strings.Contains(t, "2.0")
	},
	"ISC": func(t string) bool {
		return strings.Contains(t, "Permission to use, copy, modify, and/or distribute this software for any")
	},
}

const permissiveNames = "MIT, BSD-2-Clause, BSD-3-Clause, Apache-2.0, MPL-2.0, ISC"

var bsd3 = regexp.MustCompile(`Neither the name|names of its\s+contributors|name of the copyright holder|names of any contributors may not be used`)

// readList parses the pinned module list: `path version h1:sum licence` per
// line; blank lines and #-comments are ignored.
func readList(name string) ([]module, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var mods []module
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fs := strings.Fields(line)
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 4 || !strings.HasPrefix(fs[2], "h1:") {
			return nil, fmt.Errorf("%s:%d: want `path version h1:sum licence`", name, n)
		}
		m := module{Path: fs[0], Version: fs[1], Sum: fs[2], Licence: fs[3]}
		if permissive[m.Licence] == nil {
			return nil, fmt.Errorf("%s:%d: licence %q is not one of %s", name, n, m.Licence, permissiveNames)
		}
		if strings.HasPrefix(m.Path, "golang.org/x/") {
			return nil, fmt.Errorf("%s:%d: %s is maintained with the Go standard library; leave it out", name, n, m.Path)
		}
		if seen[m.Path] {
			return nil, fmt.Errorf("%s:%d: %s listed twice", name, n, m.Path)
		}
		seen[m.Path] = true
		mods = append(mods, m)
	}
	return mods, sc.Err()
}

// checkLicence makes sure a licence file at the module's root carries the
// licence the list declares for it.
func checkLicence(dir string, m module) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		n := strings.ToLower(e.Name())
		if e.IsDir() || !(strings.HasPrefix(n, "licen") || strings.HasPrefix(n, "copying")) {
			continue
		}
		names = append(names, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		if permissive[m.Licence](string(b)) {
			return nil
		}
	}
	return fmt.Errorf("%s@%s: no licence file (of %q) reads as %s", m.Path, m.Version, names, m.Licence)
}
