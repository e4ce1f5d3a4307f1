package config

import (
	"bytes"
	"errors"
	"os"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"gopkg.in/yaml.v3"
)

// SetInFile sets the scalar at key path p ("server.listen") in the YAML
// config file at path, creating the file, the mappings on the way and the
// key as needed, and keeping the file's other keys and comments. The file
// is replaced atomically; its mode is kept (0644 for a new file).
func SetInFile(path, p, value string) error {
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	mode := os.FileMode(0o644)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
		if len(bytes.TrimSpace(data)) > 0 {
			doc = &yaml.Node{}
			if err := yaml.Unmarshal(data, doc); err != nil {
				return errcode.Wrap(errcode.ConfigInvalid, err, "%s: %v", path, err)
			}
		}
	case !errors.Is(err, os.ErrNotExist):
		return errcode.Wrap(errcode.ConfigInvalid, err, "read %s: %v", path, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return errcode.New(errcode.ConfigInvalid, "%s: the top level is not a mapping", path)
	}
	m := doc.Content[0]
	keys := strings.Split(p, ".")
	for i, k := range keys {
		var v *yaml.Node
		for j := 0; j+1 < len(m.Content); j += 2 {
			if m.Content[j].Value == k {
				v = m.Content[j+1]
				break
			}
		}
		last := i == len(keys)-1
		if v == nil {
			v = &yaml.Node{Kind: yaml.MappingNode}
			if last {
				v = &yaml.Node{Kind: yaml.ScalarNode}
			}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, v)
		}
		if last {
			*v = yaml.Node{Kind: yaml.ScalarNode, Value: value, LineComment: v.LineComment, HeadComment: v.HeadComment}
			break
		}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			*v = yaml.Node{Kind: yaml.MappingNode}
		}
		if v.Kind != yaml.MappingNode {
			return errcode.New(errcode.ConfigInvalid, "%s: %s is not a mapping", path, strings.Join(keys[:i+1], "."))
		}
		m = v
	}
	var buf bytes.Buffer
	if err := encodeYAML(&buf, doc); err != nil {
		return err
	}
	if err := atomicfile.Write(path, buf.Bytes(), mode); err != nil {
		return errcode.Wrap(errcode.ConfigInvalid, err, "write %s: %v", path, err)
	}
	return nil
}
