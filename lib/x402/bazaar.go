package x402

import (
	"net"
	"net/url"
	"sort"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// BazaarKey is the PaymentRequired extension key of discovery metadata.
const BazaarKey = "bazaar"

// bazaarMeta is the service metadata of x402.bazaar.metadata, checked
// against the Bazaar extension's rules.
type bazaarMeta struct {
	description string
	serviceName string
	tags        []string
	iconURL     string
}

// bazaarKeys are the x402.bazaar.metadata keys dir2mcp understands.
var bazaarKeys = map[string]string{
	"description":  "appended to each tool's resource description",
	"service_name": "resource.serviceName: printable ASCII, at most 32 characters",
	"tags":         "resource.tags: comma-separated, at most 5, each printable ASCII up to 32 characters",
	"icon_url":     "resource.iconUrl: an absolute http(s) URL on a DNS name",
}

// newBazaarMeta checks metadata (CONFIG_INVALID naming the key when a
// value breaks the Bazaar rules, rather than silently dropping it).
func newBazaarMeta(m map[string]string) (*bazaarMeta, error) {
	b := &bazaarMeta{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.TrimSpace(m[k])
		field := "x402.bazaar.metadata." + k
		bad := func(want string) error {
			return errcode.FieldError(errcode.ConfigInvalid, field, "%s: %q is not valid; want %s", field, v, want)
		}
		switch k {
		case "description":
			b.description = clean(v)
		case "service_name":
			if v != "" && !printableASCII(v, 32) {
				return nil, bad(bazaarKeys[k])
			}
			b.serviceName = v
		case "tags":
			seen := map[string]bool{}
			for _, t := range strings.Split(v, ",") {
				t = strings.TrimSpace(t)
				if t == "" {
					continue
				}
				if !printableASCII(t, 32) {
					return nil, bad(bazaarKeys[k])
				}
				if !seen[strings.ToLower(t)] {
					seen[strings.ToLower(t)] = true
					b.tags = append(b.tags, t)
				}
			}
			if len(b.tags) > 5 {
				return nil, bad(bazaarKeys[k])
			}
		case "icon_url":
			if v != "" && !validIconURL(v) {
				return nil, bad(bazaarKeys[k])
			}
			b.iconURL = v
		default:
			known := make([]string, 0, len(bazaarKeys))
			for kk := range bazaarKeys {
				known = append(known, kk)
			}
			sort.Strings(known)
			return nil, errcode.FieldError(errcode.ConfigInvalid, field, "%s: unknown Bazaar metadata key; known keys: %s", field, strings.Join(known, ", "))
		}
	}
	return b, nil
}

// apply adds the service metadata to pr's resource and the MCP discovery
// info of tool t as the bazaar extension (info + the JSON Schema that
// validates it).
func (b *bazaarMeta) apply(pr *PaymentRequired, t Tool) {
	if b.description != "" {
		pr.Resource.Description += " — " + b.description
	}
	pr.Resource.ServiceName, pr.Resource.Tags, pr.Resource.IconURL = b.serviceName, b.tags, b.iconURL
	input := map[string]any{"type": "mcp", "tool": t.Name, "transport": "streamable-http"}
	if t.Description != "" {
		input["description"] = t.Description
	}
	schema := t.InputSchema
	if schema == nil {
		schema = map[string]any{"type": "object"}
	}
	input["inputSchema"] = schema
	pr.Extensions = map[string]any{BazaarKey: map[string]any{
		"info": map[string]any{"input": input, "output": map[string]any{"type": "json"}},
		"schema": map[string]any{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type":    "object",
			"properties": map[string]any{
				"input": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"type":        map[string]any{"type": "string", "const": "mcp"},
						"tool":        map[string]any{"type": "string"},
						"description": map[string]any{"type": "string"},
						"transport":   map[string]any{"type": "string", "enum": []string{"streamable-http", "sse"}},
						"inputSchema": map[string]any{"type": "object"},
						"example":     map[string]any{"type": "object"},
					},
					"required":             []string{"type", "tool", "inputSchema"},
					"additionalProperties": false,
				},
				"output": map[string]any{
					"type":       "object",
					"properties": map[string]any{"type": map[string]any{"type": "string"}, "example": map[string]any{}},
					"required":   []string{"type"},
				},
			},
			"required": []string{"input"},
		},
	}}
}

func printableASCII(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// validIconURL applies the Bazaar iconUrl rule: absolute http(s), no
// userinfo, a DNS name (no IP literal, loopback name or numeric host).
func validIconURL(s string) bool {
	if len(s) > 2048 || strings.ContainsAny(s, "\x00\r\n\t ") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Host == "" {
		return false
	}
	h := strings.ToLower(u.Hostname())
	if net.ParseIP(h) != nil || h == "localhost" || h == "localhost.localdomain" || h == "ip6-localhost" || h == "ip6-loopback" ||
		strings.HasPrefix(h, "0x") || digits(strings.ReplaceAll(h, ".", "")) {
		return false
	}
	return true
}
