package config

import (
	"fmt"
	"sort"
	"strings"
)

// Source values recorded in Sources (besides "env:NAME").
const (
	SourceDefault = "default"
	SourceFile    = "file"
	SourceFlag    = "flag"
)

// Sources records, per key path, which layer set the effective value:
// "default", "file", "env:NAME" or "flag". Map entries are recorded under
// their own path too (e.g. "ingest.size_caps_mb.code").
type Sources struct {
	// File is the config file that was read, or "" when none was.
	File string
	// Warnings are non-fatal findings, e.g. a plaintext secret in the
	// config file. They never contain a secret value.
	Warnings []string

	origin map[string]string
	lines  map[string]int
}

func newSources(cfg *Config) *Sources {
	s := &Sources{origin: map[string]string{}, lines: map[string]int{}}
	for i := range leaves {
		l := &leaves[i]
		s.origin[l.path] = SourceDefault
		if l.kind == kindFloatMap || l.kind == kindStringMap {
			for _, k := range l.value(cfg).MapKeys() {
				s.origin[l.path+"."+k.String()] = SourceDefault
			}
		}
	}
	return s
}

// Of returns the source of key path p ("default" when nothing set it).
func (s *Sources) Of(p string) string {
	if s == nil {
		return SourceDefault
	}
	if o, ok := s.origin[p]; ok {
		return o
	}
	return SourceDefault
}

// Line returns the config file line that set p, or 0. List elements have
// their own lines under "path[i]".
func (s *Sources) Line(p string) int {
	if s == nil {
		return 0
	}
	return s.lines[p]
}

// Paths returns every recorded key path, sorted.
func (s *Sources) Paths() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.origin))
	for p := range s.origin {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (s *Sources) set(p, origin string, line int) {
	s.origin[p] = origin
	if line > 0 {
		s.lines[p] = line
	} else {
		delete(s.lines, p)
	}
}

func (s *Sources) warn(format string, args ...any) {
	s.Warnings = append(s.Warnings, fmt.Sprintf(format, args...))
}

// describe says where p's value came from, for error messages:
// ".dir2mcp.yaml:12", "env DIR2MCP_X", "flag" or "default".
func (s *Sources) describe(p string) string {
	o := s.Of(p)
	switch {
	case o == SourceFile:
		if ln := s.lines[p]; ln > 0 {
			return fmt.Sprintf("%s:%d", s.File, ln)
		}
		return s.File
	case strings.HasPrefix(o, "env:"):
		return "env " + strings.TrimPrefix(o, "env:")
	}
	return o
}

// clearMap drops the recorded origins of a map leaf's entries.
func (s *Sources) clearMap(p string) {
	prefix := p + "."
	for k := range s.origin {
		if strings.HasPrefix(k, prefix) {
			delete(s.origin, k)
			delete(s.lines, k)
		}
	}
}
