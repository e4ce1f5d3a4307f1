package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"gopkg.in/yaml.v3"
)

// Print writes the effective config for `dir2mcp config print` in format
// "yaml" (or "") or "json". Secrets appear only as their source, e.g.
// "<from env MISTRAL_API_KEY>" or "<unset>". With a non-nil src, YAML
// output carries a "# from ..." comment on every key not at its default.
func (c *Config) Print(w io.Writer, src *Sources, format string) error {
	switch format {
	case "", "yaml":
		root := treeOf(c, src, false)
		if src != nil {
			file := src.File
			if file == "" {
				file = "none"
			}
			root.HeadComment = "Effective dir2mcp config (config file: " + file + ").\nKeys without a \"from\" comment have their default value."
		}
		return encodeYAML(w, root)
	case "json":
		var b bytes.Buffer
		writeJSON(&b, treeOf(c, nil, false))
		var out bytes.Buffer
		if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
			return errcode.Wrap(errcode.Internal, err, "config print: %v", err)
		}
		out.WriteByte('\n')
		_, err := w.Write(out.Bytes())
		return err
	}
	return errcode.FieldError(errcode.InvalidField, "format", "unknown config print format %q; want yaml or json", format)
}

func encodeYAML(w io.Writer, root *yaml.Node) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return err
	}
	return enc.Close()
}

// treeBuilder renders a Config as a yaml.Node tree in schema order.
type treeBuilder struct {
	src *Sources
	// meta renders secrets as {source, name, set} mappings (snapshot)
	// instead of a display string.
	meta bool
	// notes are effectNotes, appended to a key's comment.
	notes map[string]string
}

func treeOf(c *Config, src *Sources, meta bool) *yaml.Node {
	b := &treeBuilder{src: src, meta: meta}
	if !meta {
		b.notes = effectNotes(c)
	}
	return b.structNode(reflect.ValueOf(c).Elem(), "")
}

func (b *treeBuilder) structNode(v reflect.Value, prefix string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name := yamlName(t.Field(i))
		if name == "" {
			continue
		}
		path := joinPath(prefix, name)
		k := strNode(name)
		var val *yaml.Node
		if l := leafByPath[path]; l != nil {
			val = b.leafNode(l, v.Field(i))
			if c := b.comment(path); c != "" && l.kind != kindSecret {
				if val.Kind == yaml.ScalarNode {
					val.LineComment = c
				} else {
					k.LineComment = c
				}
			}
		} else {
			val = b.structNode(v.Field(i), path)
		}
		n.Content = append(n.Content, k, val)
	}
	return n
}

// comment describes a non-default source of path and its effect note, or
// "".
func (b *treeBuilder) comment(path string) string {
	var from string
	if b.src != nil && b.src.Of(path) != SourceDefault {
		from = "from " + b.src.describe(path)
	}
	note := b.notes[path]
	switch {
	case note == "":
		return from
	case from == "":
		return note
	}
	return from + "; " + note
}

func (b *treeBuilder) leafNode(l *leaf, v reflect.Value) *yaml.Node {
	switch l.kind {
	case kindString:
		return strNode(v.String())
	case kindBool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v.Bool())}
	case kindInt:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v.Int(), 10)}
	case kindFloat:
		return floatNode(v.Float())
	case kindDuration:
		return strNode(Duration(v.Int()).String())
	case kindSecret:
		s := v.Interface().(Secret)
		if b.meta {
			return secretMeta(s)
		}
		return strNode(s.Describe())
	case kindList:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for i := 0; i < v.Len(); i++ {
			n.Content = append(n.Content, strNode(v.Index(i).String()))
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle
		}
		return n
	case kindFloatMap, kindStringMap:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		for _, k := range keys {
			e := v.MapIndex(reflect.ValueOf(k))
			var en *yaml.Node
			if l.kind == kindFloatMap {
				en = floatNode(e.Float())
			} else {
				en = strNode(e.String())
			}
			en.LineComment = b.comment(l.path + "." + k)
			n.Content = append(n.Content, strNode(k), en)
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle
		}
		return n
	}
	panic("config: leafNode of " + l.kind.String())
}

// secretMeta renders a secret's source metadata, never its value:
// {source: env, name: MISTRAL_API_KEY, set: true}.
func secretMeta(s Secret) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	add := func(k string, v *yaml.Node) { n.Content = append(n.Content, strNode(k), v) }
	kind, detail, _ := strings.Cut(s.Source, ":")
	if kind == "" {
		kind = "none"
	}
	add("source", strNode(kind))
	switch kind {
	case "env":
		add("name", strNode(detail))
	case "file":
		add("path", strNode(detail))
	}
	add("set", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(s.IsSet())})
	n.Style = yaml.FlowStyle
	return n
}

func strNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "\n") {
		n.Style = yaml.LiteralStyle
	}
	return n
}

func floatNode(f float64) *yaml.Node {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(int64(f), 10)}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(f, 'g', -1, 64)}
}

// writeJSON renders a tree built by treeBuilder as compact JSON, keeping
// key order.
func writeJSON(b *bytes.Buffer, n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			jsonString(b, n.Content[i].Value)
			b.WriteByte(':')
			writeJSON(b, n.Content[i+1])
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, e := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	default:
		switch n.Tag {
		case "!!int", "!!float", "!!bool":
			b.WriteString(n.Value)
		default:
			jsonString(b, n.Value)
		}
	}
}

func jsonString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(fmt.Sprintf("config: encoding a string: %v", err))
	}
	b.Truncate(b.Len() - 1) // Encode's trailing newline
}
