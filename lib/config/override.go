package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// applyText sets leaf l from the text form used by env vars and flags and
// records origin. loc prefixes error messages ("env NAME" or "flag").
func applyText(cfg *Config, src *Sources, l *leaf, s, origin, loc string) error {
	fv := l.value(cfg)
	fail := func(sub, msg string) error {
		return &errcode.Error{Code: errcode.ConfigInvalid, Field: l.path + sub,
			Message: fmt.Sprintf("%s: %s%s: %s", loc, l.path, sub, msg)}
	}
	switch l.kind {
	case kindList:
		fv.Set(reflect.ValueOf(parseListText(s)))
	case kindFloatMap, kindStringMap:
		m, err := parseMapText(s)
		if err != nil {
			return fail("", err.Error())
		}
		for _, k := range sortedKeys(m) {
			if err := setMapEntry(fv, l.kind, k, m[k]); err != nil {
				return fail("."+k, err.Error())
			}
			src.set(l.path+"."+k, origin, 0)
		}
		if fv.IsNil() {
			fv.Set(reflect.MakeMap(fv.Type()))
		}
	default:
		if err := parseScalar(fv, l.kind, s); err != nil {
			return fail("", err.Error())
		}
	}
	src.set(l.path, origin, 0)
	if p := checkLeaf(l.path, fv); p != nil {
		return fail(p.sub, p.msg)
	}
	return nil
}

// applyEnv applies every DIR2MCP_* override that is set. An empty value
// sets strings, lists and maps to empty and is ignored for other types.
func applyEnv(cfg *Config, src *Sources, lookup lookupFunc) error {
	for i := range leaves {
		l := &leaves[i]
		if l.kind == kindSecret {
			continue // resolved with the credential sources
		}
		s, ok := lookup(l.env)
		if !ok {
			continue
		}
		if s == "" && l.kind != kindString && l.kind != kindList && !l.kind.isMap() {
			continue
		}
		if err := applyText(cfg, src, l, s, "env:"+l.env, "env "+l.env); err != nil {
			return err
		}
	}
	return nil
}

// applyFlags applies flag values keyed by key path. A map entry may be set
// by its own path ("ingest.size_caps_mb.pdf").
func applyFlags(cfg *Config, src *Sources, flags map[string]string) error {
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, p := range keys {
		s := flags[p]
		loc := "flag " + p
		if l := leafByPath[p]; l != nil {
			if l.kind == kindSecret {
				return &errcode.Error{Code: errcode.ConfigInvalid, Field: p, Message: fmt.Sprintf(
					"%s: secrets cannot be passed as flags (command lines are visible to other users); set %s or use secrets.provider file", loc, l.env)}
			}
			if err := applyText(cfg, src, l, s, SourceFlag, loc); err != nil {
				return err
			}
			continue
		}
		if l, key := mapEntryLeaf(p); l != nil {
			fv := l.value(cfg)
			if err := setMapEntry(fv, l.kind, key, s); err != nil {
				return &errcode.Error{Code: errcode.ConfigInvalid, Field: p, Message: fmt.Sprintf("%s: %v", loc, err)}
			}
			src.set(p, SourceFlag, 0)
			src.set(l.path, SourceFlag, 0)
			if pr := checkLeaf(l.path, fv); pr != nil {
				return &errcode.Error{Code: errcode.ConfigInvalid, Field: l.path + pr.sub, Message: fmt.Sprintf("%s: %s", loc, pr.msg)}
			}
			continue
		}
		hint := ""
		if sg := suggest(p, KeyPaths()); sg != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", sg)
		}
		return &errcode.Error{Code: errcode.ConfigInvalid, Field: p, Message: fmt.Sprintf("%s: unknown config key%s", loc, hint)}
	}
	return nil
}

// mapEntryLeaf splits p into a map leaf and an entry key ("x.prices" and
// "dir2mcp.ask" for "x.prices.dir2mcp.ask"); entry keys may contain dots.
func mapEntryLeaf(p string) (*leaf, string) {
	for i := range leaves {
		l := &leaves[i]
		if key, ok := strings.CutPrefix(p, l.path+"."); ok && l.kind.isMap() && key != "" {
			return l, key
		}
	}
	return nil, ""
}
