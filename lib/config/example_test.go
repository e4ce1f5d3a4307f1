package config

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// ExampleYAML must carry every default: decoded onto a zero Config it
// yields exactly Default().
func TestExampleYAMLEqualsDefaults(t *testing.T) {
	var cfg Config
	src := newSources(&cfg)
	if err := decodeFile([]byte(ExampleYAML()), "example", &cfg, src, env(nil)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&cfg, Default()) {
		t.Errorf("ExampleYAML decodes to\n%#v\nwant\n%#v", cfg, *Default())
	}
	if len(src.Warnings) != 0 {
		t.Errorf("warnings: %v", src.Warnings)
	}
}

// Every key appears in the template, so config init documents all of them.
func TestExampleYAMLListsEveryKey(t *testing.T) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(ExampleYAML()), &root); err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := joinPath(prefix, n.Content[i].Value)
			have[p] = true
			if leafByPath[p] == nil {
				walk(n.Content[i+1], p)
			}
		}
	}
	walk(root.Content[0], "")
	for _, p := range KeyPaths() {
		if !have[p] {
			t.Errorf("ExampleYAML lacks %s", p)
		}
	}
}

// The template is a valid config file as is.
func TestExampleYAMLLoads(t *testing.T) {
	cfg, _, err := loadYAML(t, ExampleYAML(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutSecrets(cfg), Default()) {
		t.Errorf("loaded template differs from Default()")
	}
	if !strings.Contains(ExampleYAML(), "# off|ocr|auto") {
		t.Errorf("template lost its enum comments")
	}
}
