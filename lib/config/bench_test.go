package config

import "testing"

func BenchmarkLoadExampleYAML(b *testing.B) {
	dir := b.TempDir()
	if err := writeConfigB(dir, ExampleYAML()); err != nil {
		b.Fatal(err)
	}
	opts := LoadOptions{Dir: dir, Env: env(map[string]string{"DIR2MCP_SERVER_LISTEN": "127.0.0.1:7000"})}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}
