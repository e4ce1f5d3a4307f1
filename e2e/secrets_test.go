package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// credential is a planted secret: its kind and the value that must never
// come back. Values are assembled from pieces so the source does not look
// like a leak to scanners.
type credential struct{ kind, value string }

func rep(s string, n int) string { return strings.Repeat(s, n) }

// queryOf is a search query holding cr: the bare value for a credential
// that names itself (a provider prefix), else the value in a context the
// redaction patterns recognise. (A bare random password is just a word to
// the server: echoed back in the result and kept in the audit log as the
// client sent it.)
func queryOf(cr credential) string {
	switch {
	case strings.HasSuffix(cr.kind, "_password") || cr.kind == "mistral":
		return "where is password=" + cr.value + " used"
	case cr.kind == "azure":
		return "AccountKey=" + cr.value
	case cr.kind == "authorization_basic":
		return "Authorization: Basic " + cr.value
	case cr.kind == "telegram":
		return "bot 123456789:" + cr.value
	case strings.HasSuffix(cr.kind, "_body"):
		return "-----BEGIN PRIVATE KEY-----\n" + cr.value + "\n-----END PRIVATE KEY-----"
	}
	return cr.value
}

// plantedSecrets writes 25+ kinds of credentials into files that stay
// indexed (README.md, config.yaml, notes.txt, main.go, netrc.txt,
// handbook.html), in contexts the exclusion patterns do not match, plus
// aws.txt, which the default secret patterns exclude whole. It returns
// every secret value.
func plantedSecrets(t *testing.T, dir string) []credential {
	pemBody := "MIIEowIBAAKCAQEAq7BFUpkGp3+LQmlQ2Zx1yWf8pK0Tn5Vd9e3sRg7cXbH4aJm2\nNl6oQkPz0Yw3Ue1Rt5Gv8Hj2Kd4Lf6Ms9Nq1Pr3Ss5Tu7Vw9Xy1Za3Bb5Cd7Ef9\n"
	creds := []credential{
		{"github", "gh" + "p_" + rep("Qw3rTy7u", 4) + "Ab12"},
		{"github_pat", "github_pat_" + "11AZXCVB0" + rep("mN4bV7cX", 8)},
		{"gitlab", "gl" + "pat-" + "Hq7Kz2Lm9Np4Rs6Tv8Wx"},
		{"slack", "xo" + "xb-" + "918273645501-1928374655012-ZyXwVuTsRqPoNmLkJiHgFeDc"},
		{"slack_webhook", "https://hooks.slack.com/services/T0AAAA1/B0BBBB2/" + "u7Yt6Rr5Ee4Ww3Qq2Aa1Zz0X"},
		{"stripe", "sk" + "_live_" + "51JqLyjWDarjtT1zdp7dcXYZq9"},
		{"twilio", "SK" + "9f8e7d6c5b4a39281706f5e4d3c2b1a0"},
		{"sendgrid", "SG" + ".Ab3De5Fg7Hi9Jk1Lm3No5P" + "." + "Qr7St9Uv1Wx3Yz5Ab7Cd9Ef1Gh3Ij5Kl7Mn9Op1Qr3"},
		{"google_api", "AI" + "za" + "SyB7kQ2mX9pL4nR6tV8wZ1cE3gJ5hM7qS0u"},
		{"google_oauth", "GOCSPX" + "-9aB8cD7eF6gH5iJ4kL3mN2oP1qR"},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiJkZXBsb3kiLCJleHAiOjE5MDAwMDAwMDB9" + ".7Zq3LmN9pR2sT5vW7yA1bC4dE6fG8hJ0kLmNoPqRsT"},
		{"openai", "sk" + "-proj-" + "T3BlbkFJ" + "p9Q8r7S6t5U4v3W2x1Y0zAbCdEf"},
		{"anthropic", "sk" + "-ant-" + "api03-" + "Lk9Jh8Gf7Ds6Aa5Pp4Oo3Ii2Uu1Yy0"},
		{"mistral", "Mz7Qw2Er5Ty8Ui1Op4As6Df9Gh3Jk0Lx"},
		{"npm", "npm" + "_" + rep("Zx9Cv8Bn7M", 3) + "a1b2c3"},
		{"azure", rep("Kq8+Lm3/", 10) + "Zz=="},
		{"postgres_dsn_password", "Pg5ecr3tW0rd"},
		{"basic_auth_url_password", "b4s1cAuthP4ss"},
		{"url_query_password", "qu3ryP4ssw0rd"},
		{"yaml_password", "Yaml5ecretPw9"},
		{"mssql_password", "Tr0ub4dorX3"},
		{"netrc_password", "n3trcS3cretPw"},
		{"authorization_basic", "dXNlcjpzM2NyM3RCYXNpYw=="},
		{"huggingface", "hf" + "_" + rep("KjHgFdSaQw", 3) + "ErTy"},
		{"telegram", "AA" + "Fq2w3e4r5t6y7u8i9o0pAsDfGhJkLzXcV"},
		{"digitalocean", "dop" + "_v1_" + rep("9e8d7c6b5a4f3e2d", 4)},
		{"shopify", "shp" + "at_" + rep("f0e1d2c3", 4)},
		{"pypi", "pypi" + "-AgEIcHlwaS5vcmc" + rep("Zq8Wx7Ec6Rv5", 5)},
		{"rsa_private_key_body", "q7BFUpkGp3+LQmlQ2Zx1yWf8pK0Tn5Vd9e3sRg7cXbH4aJm2"},
		{"openssh_private_key_body", "b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0"},
		{"ec_private_key_body", "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5QhA1QbVtY3Fh"},
		{"pgp_private_key_body", "lQdGBF4HhxQBEADMiVb5i8Jx0Y3oQm2NnO8pP9qQ0rR1sS2tT3uU4"},
		{"dir2mcp_token", "d2m" + "_" + rep("7a6b5c4d", 8)},
		{"aws_key_id", "AKIA" + "QX7EZ2RPNW5K3MYT"},
	}
	v := map[string]string{}
	for _, c := range creds {
		v[c.kind] = c.value
	}
	writeFile(t, filepath.Join(dir, "README.md"), `# Deployment handbook

The deployment checklist for the unicorn service. Our CI bot authenticates with `+v["github"]+`
and the release workflow with `+v["github_pat"]+`; mirrors use `+v["gitlab"]+`.

Chat notifications go through the bot `+v["slack"]+` and the webhook `+v["slack_webhook"]+`.
Billing runs on Stripe (`+v["stripe"]+`), SMS on Twilio (`+v["twilio"]+`), mail on SendGrid
(`+v["sendgrid"]+`). Maps use the browser key `+v["google_api"]+` and sign-in the OAuth client
secret `+v["google_oauth"]+`.

A service session looks like `+v["jwt"]+`.
Model calls use `+v["openai"]+` and `+v["anthropic"]+`.
Packages are published with `+v["npm"]+`, models pulled with `+v["huggingface"]+`,
alerts sent by the bot 123456789:`+v["telegram"]+`, droplets managed with `+v["digitalocean"]+`,
the shop synced with `+v["shopify"]+` and wheels uploaded with `+v["pypi"]+`.
The MCP gateway's CI credential is `+v["dir2mcp_token"]+`.
`)
	writeFile(t, filepath.Join(dir, "config.yaml"), `# unicorn service configuration
database:
  url: postgres://unicorn:`+v["postgres_dsn_password"]+`@db.internal:5432/unicorn
  password: `+v["yaml_password"]+`
storage:
  connection: DefaultEndpointsProtocol=https;AccountName=unicorn;AccountKey=`+v["azure"]+`;EndpointSuffix=core.windows.net
mistral_api_key: `+v["mistral"]+`
`)
	writeFile(t, filepath.Join(dir, "notes.txt"), `Operations notes for the unicorn service.

Legacy dashboard: https://ops:`+v["basic_auth_url_password"]+`@dash.internal/
Health probe: curl -H 'Authorization: Basic `+v["authorization_basic"]+`' https://dash.internal/health

The old deploy key:
-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA`+v["rsa_private_key_body"]+`
`+pemBody+`-----END RSA PRIVATE KEY-----

The bastion key:
-----BEGIN OPENSSH PRIVATE KEY-----
`+v["openssh_private_key_body"]+`
AAAAGAAAABBL2kd6ZLqYcR8m3bJ4+uGZAAAAEAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5
-----END OPENSSH PRIVATE KEY-----

The signing key:
-----BEGIN EC PRIVATE KEY-----
`+v["ec_private_key_body"]+`
oAoGCCqGSM49AwEHoUQDQgAEp3rQ8nK1mX5wZ2vY7uT4sR6qP9oN0lM3kJ8hG1fE
-----END EC PRIVATE KEY-----

The release key:
-----BEGIN PGP PRIVATE KEY BLOCK-----

`+v["pgp_private_key_body"]+`
=Qz8R
-----END PGP PRIVATE KEY BLOCK-----
`)
	writeFile(t, filepath.Join(dir, "main.go"), `package main

// dsn is the reporting database of the unicorn service.
const dsn = "Server=reports;Database=unicorn;User Id=sa;Password=`+v["mssql_password"]+`;"

// loginURL signs the probe in.
const loginURL = "https://api.example.com/login?user=probe&password=`+v["url_query_password"]+`&next=/"

func main() {}
`)
	// HTML: grep reads its text again from the file (the index keeps no
	// line map), so this one checks that path is masked too.
	writeFile(t, filepath.Join(dir, "handbook.html"), `<html><head><title>Unicorn handbook</title></head><body>
<h1>Unicorn handbook</h1>
<p>The billing key is <code>`+v["stripe"]+`</code> and chat goes to `+v["slack"]+`.</p>
<p>Reports: <code>Server=reports;Database=unicorn;User Id=sa;Password=`+v["mssql_password"]+`;</code></p>
</body></html>
`)
	writeFile(t, filepath.Join(dir, "netrc.txt"), "machine api.unicorn.example\n  login deploy\n  password "+v["netrc_password"]+"\n")
	writeFile(t, filepath.Join(dir, "aws.txt"), "unicorn backups: aws_access_key_id = "+v["aws_key_id"]+"\n")
	return creds
}

// spelled is a regular expression matching exactly s, one character class
// per character: "ab" is "[a][b]", which does not contain "ab".
func spelled(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '\n' {
			b.WriteString(`\n`)
			continue
		}
		b.WriteString("[" + regexp.QuoteMeta(string(r)) + "]")
	}
	return b.String()
}

// exactReads reads rel with open_file exact reads of n bytes from offset
// 0 to the end, recording each response, and returns the bytes joined
// (base64 decoded).
func exactReads(t *testing.T, c *mcp, rel string, n int, record func(any)) string {
	t.Helper()
	var joined []byte
	for off := 0; ; {
		r := c.tool("dir2mcp.open_file", map[string]any{"rel_path": rel, "offset": off, "length": n})
		record(r)
		var out struct {
			Content, Encoding string
			Length            int
			EOF               bool
		}
		if r.IsError || json.Unmarshal(r.StructuredContent, &out) != nil {
			t.Fatalf("exact read of %s at %d: %v", rel, off, r.Content)
		}
		data := []byte(out.Content)
		if out.Encoding == "base64" {
			data, _ = base64.StdEncoding.DecodeString(out.Content)
		}
		if len(data) != out.Length || out.Length == 0 && !out.EOF {
			t.Fatalf("exact read of %s at %d: %d bytes, length %d", rel, off, len(data), out.Length)
		}
		joined = append(joined, data...)
		off += len(data)
		if out.EOF {
			return string(joined)
		}
	}
}

// TestSecretCorpus: credentials of 25+ kinds inside indexed files never
// come back through any tool, resource or listing — grep (nor can it find
// one, or a piece of one) and exact reads in pieces included; the files stay
// searchable; the file a secret pattern excludes is named by `status` and
// list_files excluded=true with its rule; and nothing the server writes —
// the state directory (audit log, index, tokens) and its stdout/stderr —
// holds a planted credential or a bearer token.
func TestSecretCorpus(t *testing.T) {
	dir := t.TempDir()
	creds := plantedSecrets(t, dir)
	if len(creds) < 25 {
		t.Fatalf("only %d credentials", len(creds))
	}
	scoped := tokenAdd(t, dir, "agent")
	p := start(t, "dir2mcp", []string{"DIR2MCP_SERVER_RATE_LIMIT_RPS=0", "DIR2MCP_SERVER_RATE_LIMIT_EXPENSIVE_RPS=0"}, upArgs(dir)...)
	owner := p.connect()
	p.wait("index_complete", 60*time.Second)
	var seen strings.Builder // every response body
	record := func(v any) {
		b, _ := json.Marshal(v)
		seen.Write(b)
		seen.WriteByte('\n')
	}
	for _, tok := range []string{owner.token, scoped} {
		c := newMCP(t, server{url: owner.url, token: tok})
		c.initialize()
		call := func(method string, params any) json.RawMessage {
			r := c.call(method, params)
			record(r)
			return r
		}
		tool := func(name string, args map[string]any) toolResult {
			r := c.tool(name, args)
			record(r)
			return r
		}
		// The files are indexed and searchable by their other words.
		for q, file := range map[string]string{"deployment checklist unicorn": "README.md", "reporting database dsn": "main.go",
			"operations notes bastion": "notes.txt", "unicorn service configuration database": "config.yaml"} {
			found := false
			for _, h := range c.search(q, map[string]any{"k": 10}).Hits {
				found = found || h.RelPath == file
				record(h)
			}
			if !found {
				t.Errorf("search %q does not find %s: the file should stay indexed", q, file)
			}
		}
		// Queries holding a credential (bare when it names itself, else in
		// its context) are masked where the server echoes or logs them.
		for _, cr := range creds {
			tool("dir2mcp.search", map[string]any{"query": queryOf(cr)})
			tool("dir2mcp.search", map[string]any{"query": cr.kind + " key token password"})
		}
		tool("dir2mcp.ask", map[string]any{"question": "Which credentials and keys does the deployment use?", "k": 20})
		tool("dir2mcp.ask", map[string]any{"question": "What is the database password?"})
		for _, f := range []string{"README.md", "config.yaml", "notes.txt", "main.go", "netrc.txt", "handbook.html", "aws.txt"} {
			tool("dir2mcp.open_file", map[string]any{"rel_path": f})
			for line := 1; line <= 45; line++ { // every single line: no slice escapes the masking
				tool("dir2mcp.open_file", map[string]any{"rel_path": f, "start_line": line, "end_line": line})
			}
			c.id++
			_, rr := c.post(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": "resources/read", "params": map[string]any{"uri": "dir2mcp:///" + f}})
			record(rr)
		}
		// Exact reads, in pieces that cut every credential somewhere, give
		// back the file masked whole: the pieces joined show none, and
		// each piece is as long as it says (offsets hold).
		for _, f := range []string{"README.md", "config.yaml", "notes.txt", "main.go", "netrc.txt", "handbook.html"} {
			for _, n := range []int{7, 13, 64, 1 << 20} {
				joined := exactReads(t, c, f, n, record)
				record(joined)
				if !strings.Contains(joined, "***") {
					t.Errorf("%s read %d bytes at a time shows no masked credential", f, n)
				}
			}
			tool("dir2mcp.checksum", map[string]any{"rel_path": f, "algorithms": []string{"md5", "sha1", "sha256", "sha512"}})
		}
		if r := tool("dir2mcp.open_file", map[string]any{"rel_path": "aws.txt", "offset": 0, "length": 10}); r.errCode() != "FORBIDDEN" {
			t.Errorf("exact read of the excluded aws.txt: %q", r.errCode())
		}
		// grep searches masked text: no credential, nor half of one, is
		// found; every line, with context, comes back masked. (The pattern
		// spells each character as a class, so the request itself, echoed
		// and logged, does not hold the credential.)
		for _, cr := range creds {
			v := cr.value
			for _, piece := range []string{v, v[:len(v)/2], v[len(v)/2:]} {
				var g struct{ Matches []json.RawMessage }
				json.Unmarshal(tool("dir2mcp.grep", map[string]any{"pattern": spelled(piece)}).StructuredContent, &g)
				if len(g.Matches) != 0 {
					t.Errorf("grep finds a piece of the %s credential: %s", cr.kind, g.Matches[0])
				}
			}
		}
		for _, args := range []map[string]any{{"pattern": ".", "max_matches": 1000}, {"pattern": "(?i)password|key|token|secret|BEGIN", "context": 3},
			{"pattern": "[A-Za-z0-9+/_-]{16,}", "max_matches": 1000}} {
			if r := tool("dir2mcp.grep", args); r.IsError {
				t.Errorf("grep %v: %v", args, r.Content)
			}
		}
		tool("dir2mcp.find", map[string]any{})
		call("resources/list", map[string]any{})
		tool("dir2mcp.list_files", map[string]any{})
		tool("dir2mcp.stats", map[string]any{})
		tool("dir2mcp.diff", map[string]any{})
		ex := tool("dir2mcp.list_files", map[string]any{"excluded": true})
		if tok == owner.token {
			var l struct {
				Files []struct {
					RelPath string `json:"rel_path"`
					Rule    string `json:"rule"`
				}
			}
			json.Unmarshal(ex.StructuredContent, &l)
			if len(l.Files) != 1 || l.Files[0].RelPath != "aws.txt" || l.Files[0].Rule != "security.secret_patterns[0] (aws_access_key_id)" {
				t.Errorf("list_files excluded=true: %s", ex.StructuredContent)
			}
		}
		var r struct{ Redactions int }
		json.Unmarshal(tool("dir2mcp.open_file", map[string]any{"rel_path": "README.md"}).StructuredContent, &r)
		if r.Redactions < 18 {
			t.Errorf("open_file README.md reports %d masked credentials", r.Redactions)
		}
	}
	out := seen.String()
	if !strings.Contains(out, "[REDACTED]") || !strings.Contains(out, "deployment checklist") {
		t.Fatal("the responses should show the files with their credentials masked")
	}
	for _, cr := range creds {
		if strings.Contains(out, cr.value) {
			t.Errorf("%s credential came back through the tools", cr.kind)
		}
	}
	status, err := exec.Command(bin("dir2mcp"), "status", "--dir", dir, "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Excluded []struct {
			RelPath string `json:"rel_path"`
			Code    string `json:"code"`
			Rule    string `json:"rule"`
		} `json:"excluded"`
	}
	json.Unmarshal(status, &st)
	if len(st.Excluded) != 1 || st.Excluded[0].RelPath != "aws.txt" || st.Excluded[0].Code != "SECRET_EXCLUDED" ||
		!strings.Contains(st.Excluded[0].Rule, "security.secret_patterns[0]") {
		t.Errorf("status --json excluded = %s", status)
	}
	human, _ := exec.Command(bin("dir2mcp"), "status", "--dir", dir).Output()
	if !strings.Contains(string(human), "aws.txt  (security.secret_patterns[0] (aws_access_key_id))") {
		t.Errorf("status does not name the excluded file and rule:\n%s", human)
	}
	p.stop()

	// Nothing written holds a credential or a bearer token: the state dir
	// (secret.token, the owner token's own file, aside) and the process output.
	secrets := []credential{{"owner bearer token", owner.token}, {"scoped bearer token", scoped}}
	secrets = append(secrets, creds...)
	written := map[string]string{"stdout": p.lines.String(), "stderr": p.stderr.String(), "status": string(status) + string(human)}
	filepath.WalkDir(filepath.Join(dir, ".dir2mcp"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "secret.token" {
			return nil
		}
		b, _ := os.ReadFile(path)
		written[path] = string(b)
		return nil
	})
	audits := 0
	for name, content := range written {
		if strings.HasPrefix(filepath.Base(name), "audit.jsonl") {
			audits++
		}
		for _, s := range secrets {
			if strings.Contains(content, s.value) {
				t.Errorf("%s holds the %s", name, s.kind)
			}
		}
	}
	if audits == 0 || len(written) < 8 {
		t.Errorf("checked %d written files (%d audit logs)", len(written), audits)
	}
	fmt.Fprintf(os.Stderr, "secret corpus: %d credentials, %d responses bytes, %d written files checked\n", len(creds), len(out), len(written))
}
