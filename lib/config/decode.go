package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"gopkg.in/yaml.v3"
)

// secretEnvNames are the variables holding credentials. Non-secret keys
// may not reference them, so a credential can never be copied into a
// plain value (and from there into a snapshot or log).
var secretEnvNames = func() map[string]bool {
	m := map[string]bool{"DIR2MCP_AUTH_TOKEN": true}
	for _, l := range leaves {
		if l.kind == kindSecret {
			m[l.env] = true
		}
	}
	return m
}()

// fileDecoder applies one YAML config file onto a Config, walking the
// yaml.Node tree against the struct so every error has a key path and line.
type fileDecoder struct {
	file   string
	lookup lookupFunc
	src    *Sources
}

// decodeFile overlays the YAML document data (named file in messages) onto
// cfg and records what it set in src.
func decodeFile(data []byte, file string, cfg *Config, src *Sources, lookup lookupFunc) error {
	d := &fileDecoder{file: file, lookup: lookup, src: src}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // empty file: defaults
		}
		return errcode.Wrap(errcode.ConfigInvalid, err, "%s: invalid YAML: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		if err != nil {
			return errcode.Wrap(errcode.ConfigInvalid, err, "%s: invalid YAML: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return errcode.New(errcode.ConfigInvalid, "%s:%d: a second YAML document starts here; the config file must hold exactly one", file, next.Line)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	root = deref(root)
	if isNull(root) {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return d.errAt(root.Line, "", "the top level must be a mapping of keys such as version, mistral, ingest, server")
	}
	return d.mapping(root, reflect.ValueOf(cfg).Elem(), "")
}

func (d *fileDecoder) errAt(line int, path, format string, args ...any) *errcode.Error {
	loc := fmt.Sprintf("%s:%d: ", d.file, line)
	if path != "" {
		loc += path + ": "
	}
	return &errcode.Error{Code: errcode.ConfigInvalid, Field: path, Message: loc + fmt.Sprintf(format, args...)}
}

// deref follows YAML aliases (*anchor) to their target node.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func nodeKindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

// mapping decodes mapping node n onto struct v at key path prefix.
func (d *fileDecoder) mapping(n *yaml.Node, v reflect.Value, prefix string) error {
	fields, names := fieldsOf(v.Type())
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], deref(n.Content[i+1])
		if kn.Kind != yaml.ScalarNode {
			return d.errAt(kn.Line, prefix, "keys must be plain names")
		}
		path := joinPath(prefix, kn.Value)
		if first, dup := seen[kn.Value]; dup {
			return d.errAt(kn.Line, path, "duplicate key (first set at line %d)", first)
		}
		seen[kn.Value] = kn.Line
		fi, ok := fields[kn.Value]
		if !ok {
			return d.unknownKey(kn, path, prefix, names)
		}
		fv := v.Field(fi)
		if l := leafByPath[path]; l != nil {
			if err := d.leaf(l, fv, kn, vn); err != nil {
				return err
			}
			continue
		}
		if isNull(vn) {
			continue // an empty section keeps its defaults
		}
		if vn.Kind != yaml.MappingNode {
			sub, _ := fieldsOf(fv.Type())
			return d.errAt(vn.Line, path, "want a mapping of keys (%s), got %s", strings.Join(sortedKeys(sub), ", "), nodeKindName(vn))
		}
		if err := d.mapping(vn, fv, path); err != nil {
			return err
		}
	}
	return nil
}

func (d *fileDecoder) unknownKey(kn *yaml.Node, path, prefix string, names []string) error {
	where := "at the top level"
	if prefix != "" {
		where = "under " + prefix
	}
	hint := ""
	if s := suggest(kn.Value, names); s != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	return d.errAt(kn.Line, path, "unknown key%s; allowed keys %s: %s", hint, where, strings.Join(names, ", "))
}

// leaf decodes node vn into leaf l's field fv.
func (d *fileDecoder) leaf(l *leaf, fv reflect.Value, kn, vn *yaml.Node) error {
	line := vn.Line
	if isNull(vn) {
		line = kn.Line
		fv.Set(reflect.Zero(fv.Type()))
		switch l.kind {
		case kindList:
			fv.Set(reflect.ValueOf([]string{}))
		case kindFloatMap, kindStringMap:
			fv.Set(reflect.MakeMap(fv.Type()))
			d.src.clearMap(l.path)
		}
		d.src.set(l.path, SourceFile, line)
		return d.check(l, fv, line)
	}
	switch l.kind {
	case kindSecret:
		if vn.Kind != yaml.ScalarNode {
			return d.errAt(line, l.path, "want a string such as ${%s}, got %s", l.env, kindWord(vn))
		}
		if strings.HasPrefix(vn.Value, "<") && strings.HasSuffix(vn.Value, ">") {
			return d.errAt(line, l.path, "this looks like output of config print, not a key; write ${%s} and set %s in the environment", l.env, l.env)
		}
		if _, err := expand(vn.Value, func(string) (string, bool) { return "", false }); err != nil {
			return d.errAt(line, l.path, "bad ${...} reference; want ${NAME} or ${NAME:-default}")
		}
		fv.Set(reflect.ValueOf(Secret{Ref: vn.Value}))
	case kindList:
		if vn.Kind != yaml.SequenceNode {
			return d.errAt(line, l.path, "want a list of strings, got %s", nodeKindName(vn))
		}
		list := make([]string, 0, len(vn.Content))
		for i, en := range vn.Content {
			en = deref(en)
			ep := fmt.Sprintf("%s[%d]", l.path, i)
			if en.Kind != yaml.ScalarNode || isNull(en) {
				return d.errAt(en.Line, ep, "want a string, got %s", kindWord(en))
			}
			s, err := d.expandValue(ep, en)
			if err != nil {
				return err
			}
			list = append(list, s)
			d.src.lines[ep] = en.Line
		}
		fv.Set(reflect.ValueOf(list))
	case kindFloatMap, kindStringMap:
		if vn.Kind != yaml.MappingNode {
			return d.errAt(line, l.path, "want a mapping of name: %s, got %s", mapElemWord(l.kind), nodeKindName(vn))
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(vn.Content); i += 2 {
			ek, ev := vn.Content[i], deref(vn.Content[i+1])
			ep := l.path + "." + ek.Value
			if ek.Kind != yaml.ScalarNode || ek.Value == "" {
				return d.errAt(ek.Line, l.path, "keys must be plain names")
			}
			if first, dup := seen[ek.Value]; dup {
				return d.errAt(ek.Line, ep, "duplicate key (first set at line %d)", first)
			}
			seen[ek.Value] = ek.Line
			if ev.Kind != yaml.ScalarNode {
				return d.errAt(ev.Line, ep, "want %s, got %s", mapElemWord(l.kind), nodeKindName(ev))
			}
			text := ev.Value
			if !isNull(ev) {
				s, err := d.expandValue(ep, ev)
				if err != nil {
					return err
				}
				text = s
			}
			if err := setMapEntry(fv, l.kind, ek.Value, text); err != nil {
				return d.errAt(ev.Line, ep, "%v", err)
			}
			d.src.set(ep, SourceFile, ev.Line)
		}
		if fv.IsNil() {
			fv.Set(reflect.MakeMap(fv.Type()))
		}
	default:
		if vn.Kind != yaml.ScalarNode {
			return d.errAt(line, l.path, "want a %s, got %s", kindWord2(l.kind), nodeKindName(vn))
		}
		s, err := d.expandValue(l.path, vn)
		if err != nil {
			return err
		}
		if err := parseScalar(fv, l.kind, s); err != nil {
			return d.errAt(line, l.path, "%v", err)
		}
	}
	d.src.set(l.path, SourceFile, line)
	return d.check(l, fv, line)
}

// check runs l's single-key check and reports a failure at the line of
// the offending element when known.
func (d *fileDecoder) check(l *leaf, fv reflect.Value, line int) error {
	p := checkLeaf(l.path, fv)
	if p == nil {
		return nil
	}
	if ln := d.src.lines[l.path+p.sub]; ln > 0 {
		line = ln
	}
	return d.errAt(line, l.path+p.sub, "%s", p.msg)
}

// expandValue expands ${VAR} references in a non-secret value.
func (d *fileDecoder) expandValue(path string, n *yaml.Node) (string, error) {
	x, err := expand(n.Value, d.lookup)
	if err != nil {
		return "", d.errAt(n.Line, path, "%v", err)
	}
	for _, r := range x.refs {
		if secretEnvNames[r] {
			return "", d.errAt(n.Line, path, "${%s} holds a credential and may only be used in an api_key field", r)
		}
	}
	for _, r := range x.unset {
		d.src.warn("%s:%d: %s: ${%s} is not set; using an empty value", d.file, n.Line, path, r)
	}
	return x.value, nil
}

func kindWord(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	if isNull(n) {
		return "nothing"
	}
	return "a scalar"
}

func kindWord2(k kind) string {
	switch k {
	case kindInt:
		return "integer"
	case kindFloat:
		return "number"
	case kindBool:
		return "true or false value"
	case kindDuration:
		return "duration like 24h, 30m, 90s or 0"
	}
	return k.String()
}

func mapElemWord(k kind) string {
	if k == kindFloatMap {
		return "a number"
	}
	return "a string"
}
