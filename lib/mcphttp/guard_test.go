package mcphttp

import (
	"testing"
)

func TestHostAllowed(t *testing.T) {
	allowed := []string{"mcp.example.com", "*.corp.example"}
	for host, want := range map[string]bool{
		"127.0.0.1:8080":        true,
		"[::1]:9":               true,
		"localhost:3000":        true,
		"app.localhost":         true,
		"192.168.1.20:8087":     true,
		"mcp.example.com":       true,
		"MCP.EXAMPLE.COM.:443":  true,
		"a.corp.example":        true,
		"evil.example.com":      false,
		"evil.example.com:8087": false,
		"corp.example.evil.com": false,
	} {
		if got := hostAllowed(host, allowed); got != want {
			t.Errorf("hostAllowed(%q) = %v", host, got)
		}
	}
	if !hostAllowed("anything.test", []string{"*"}) {
		t.Error(`"*" must allow any host`)
	}
}

func TestOriginAllowed(t *testing.T) {
	allowed := []string{"http://localhost", "http://127.0.0.1", "https://app.example.com:8443"}
	for origin, want := range map[string]bool{
		"http://localhost":             true,
		"http://localhost:5173":        true,
		"http://127.0.0.1:9999":        true,
		"https://localhost":            false,
		"https://app.example.com:8443": true,
		"https://app.example.com":      false,
		"https://evil.example.com":     false,
		"null":                         false,
		"http://server.local:7000":     true, // same host as the request
	} {
		if got := originAllowed(origin, "server.local:7000", allowed); got != want {
			t.Errorf("originAllowed(%q) = %v", origin, got)
		}
	}
}
