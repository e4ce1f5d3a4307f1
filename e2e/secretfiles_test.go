package e2e

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// secretFiles writes credential files as they are found in real
// repositories (dotenv files, SSH keys, GCP service-account JSON, .netrc,
// PEM blocks in notes, provider tokens, YAML passwords, quoted tokens…),
// each holding one value of a kind that must never come back, and returns
// them.
func secretFiles(t *testing.T, dir string) []credential {
	pem := func(kind, body string) string {
		return "-----BEGIN " + kind + "PRIVATE KEY-----\n" + body + "\n" + rep("Zm9vYmFyYmF6cXV4", 4) + "\n-----END " + kind + "PRIVATE KEY-----\n"
	}
	creds := []credential{
		{"dotenv_local_secret_key_base", "8f7e6d5c4b3a2918" + rep("a1b2c3d4", 6)},
		{"dotenv_local_db_pass", "LocalDbPa55word"},
		{"dotenv_production_jwt_secret", "pr0dJwtS3cretValue42"},
		{"dotenv_production_database_url_password", "Pr0dPgPassw0rd"},
		{"ssh_ed25519", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"},
		{"ssh_ecdsa", "MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49"},
		{"pem_in_txt", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDPkR7tXm"},
		{"pem_in_md", "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2dLs0ZHkvXi8LmPqQe7nRt"},
		{"gcp_private_key", "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC7gcpQw"},
		{"gcp_private_key_id", "3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e"},
		{"github_classic", "gh" + "p_" + rep("R4nd0mT0k", 4) + "AbCd"},
		{"slack_bot", "xo" + "xb-" + "2468013579-1357924680-AbCdEfGhIjKlMnOpQrStUvWx"},
		{"stripe_live", "sk" + "_live_" + "4eC39HqLyjWDarjtT1zdp7dc"},
		{"openai_project", "sk" + "-proj-" + "Xy9Wv8Ut7Sr6Qp5On4Ml3Kj2Ih1Gf0Ed"},
		{"google_api_key", "AI" + "za" + "SyD4rK8pQ2wE6tY9uI1oP3aS5dF7gH0jK2l"},
		{"netrc", "n3trcDotFilePw"},
		{"yaml_password_spaces", "correct horse battery staple"},
		{"yaml_password_short", "Hx7"},
		{"quoted_token", "tok_9a8b7c6d5e4f3a2b"},
		{"python_secret_key", "django-insecure-4f#k2@p9!x"},
		{"aws_credentials_file", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
		{"pgpass", "PgPassFil3Secret"},
		{"git_credentials", "gitCr3dPassw0rd"},
		{"docker_auth", "ZG9ja2VyOmRvY2tlclBhc3N3MHJk"},
		{"kube_client_key", "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB"},
		{"php_db_password", "WpDbPassw0rd!"},
		{"spring_password", "SpringDsPa55"},
		{"htpasswd", "$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/"},
		{"npmrc_auth", "npmAuthT0kenValue123456"},
		{"pypirc_password", "PyPiRcPassw0rd"},
		{"connection_string", "AzSqlPa55w0rd"},
		{"env_export_api_key", "ExpApiKey0123456789abcdef"},
	}
	v := map[string]string{}
	for _, c := range creds {
		v[c.kind] = c.value
	}
	files := map[string]string{
		".env.local":      "SECRET_KEY_BASE=" + v["dotenv_local_secret_key_base"] + "\nDB_PASS=" + v["dotenv_local_db_pass"] + "\n",
		".env.production": "JWT_SECRET=\"" + v["dotenv_production_jwt_secret"] + "\"\nDATABASE_URL=postgres://app:" + v["dotenv_production_database_url_password"] + "@db:5432/app\n",
		"id_ed25519":      pem("OPENSSH ", v["ssh_ed25519"]),
		".ssh/id_ecdsa":   pem("EC ", v["ssh_ecdsa"]),
		"keys.txt":        "The staging key, do not share:\n\n" + pem("", v["pem_in_txt"]) + "\nEnd of notes.\n",
		"docs/setup.md":   "# Setup\n\nPaste this key into the vault:\n\n```\n" + pem("RSA ", v["pem_in_md"]) + "```\n",
		"credentials.json": `{
  "type": "service_account",
  "project_id": "unicorn-prod",
  "private_key_id": "` + v["gcp_private_key_id"] + `",
  "private_key": "-----BEGIN PRIVATE KEY-----\n` + v["gcp_private_key"] + `\n` + rep("Zm9vYmFyYmF6cXV4", 4) + `\n-----END PRIVATE KEY-----\n",
  "client_email": "deploy@unicorn-prod.iam.gserviceaccount.com",
  "client_id": "112233445566778899"
}
`,
		"tokens.txt":             "ci: " + v["github_classic"] + "\nslack: " + v["slack_bot"] + "\nstripe: " + v["stripe_live"] + "\nopenai: " + v["openai_project"] + "\nmaps: " + v["google_api_key"] + "\n",
		".netrc":                 "machine api.unicorn.example login deploy password " + v["netrc"] + "\n",
		"deploy/config.yml":      "db:\n  user: app\n  password: " + v["yaml_password_spaces"] + "\ncache:\n  password: " + v["yaml_password_short"] + "\n",
		"client.py":              "API_URL = \"https://api.unicorn.example\"\ntoken = \"" + v["quoted_token"] + "\"\n",
		"settings.py":            "DEBUG = False\nSECRET_KEY = '" + v["python_secret_key"] + "'\n",
		".aws/credentials":       "[default]\naws_access_key_id = AKIA" + "IOSFODNN7EXAMPLX\naws_secret_access_key = " + v["aws_credentials_file"] + "\n",
		".pgpass":                "db.internal:5432:app:app:" + v["pgpass"] + "\n",
		".git-credentials":       "https://deploy:" + v["git_credentials"] + "@github.com\n",
		".docker/config.json":    `{"auths": {"registry.unicorn.example": {"auth": "` + v["docker_auth"] + `"}}}` + "\n",
		"kubeconfig.yaml":        "users:\n- name: admin\n  user:\n    client-key-data: " + v["kube_client_key"] + "\n",
		"wp-config.php":          "<?php\ndefine( 'DB_PASSWORD', '" + v["php_db_password"] + "' );\n",
		"application.properties": "spring.datasource.url=jdbc:postgresql://db/app\nspring.datasource.password=" + v["spring_password"] + "\n",
		".htpasswd":              "admin:" + v["htpasswd"] + "\n",
		".npmrc":                 "//registry.npmjs.org/:_authToken=" + v["npmrc_auth"] + "\n",
		".pypirc":                "[pypi]\nusername = __token__\npassword = " + v["pypirc_password"] + "\n",
		"appsettings.json":       `{"ConnectionStrings": {"Default": "Server=sql;Database=app;User Id=app;Password=` + v["connection_string"] + `;"}}` + "\n",
		"deploy.sh":              "#!/bin/sh\nexport UNICORN_API_KEY=" + v["env_export_api_key"] + "\n./deploy\n",
		"README.md":              "# Unicorn\n\nAn ordinary readme about the unicorn service and its zebra-striped deploys.\n",
	}
	for rel, body := range files {
		writeFile(t, filepath.Join(dir, rel), body)
	}
	return creds
}

// TestCommonSecretFiles (issue 14, 0d): none of 30+ credentials planted in
// the files they usually live in reaches any output — open_file (whole,
// lines, exact bytes), resources/read, checksum, search, grep, ask,
// listings and completion; the ordinary file is served.
func TestCommonSecretFiles(t *testing.T) {
	dir := t.TempDir()
	creds := secretFiles(t, dir)
	if len(creds) < 30 {
		t.Fatalf("only %d credential kinds", len(creds))
	}
	p := start(t, "dir2mcp", []string{"DIR2MCP_SERVER_RATE_LIMIT_RPS=0", "DIR2MCP_SERVER_RATE_LIMIT_EXPENSIVE_RPS=0"}, upArgs(dir)...)
	srv := p.connect()
	p.wait("index_complete", 60*time.Second)
	c := newMCP(t, srv)
	c.initialize()
	var seen strings.Builder
	var rels []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(path, ".dir2mcp") {
			rel, _ := filepath.Rel(dir, path)
			rels = append(rels, filepath.ToSlash(rel))
		}
		return nil
	})
	for _, rel := range rels {
		out, _ := readBoth(c, rel)
		seen.WriteString(out)
		for line := 1; line <= 12; line++ {
			b, _ := json.Marshal(c.tool("dir2mcp.open_file", map[string]any{"rel_path": rel, "start_line": line, "end_line": line}))
			seen.Write(b)
		}
	}
	var ms []string
	for _, cr := range creds {
		ms = append(ms, cr.value, cr.value[:len(cr.value)/2], cr.value[len(cr.value)/2:])
	}
	seen.WriteString(surfaces(t, c, []string{"password", "secret key token", "private key", "service account", "unicorn deploy credentials", "zebra"}, ms))
	out := seen.String()
	if !strings.Contains(out, "zebra-striped") {
		t.Fatal("the ordinary readme should be served")
	}
	for _, cr := range creds {
		if strings.Contains(out, cr.value) {
			i := strings.Index(out, cr.value)
			t.Errorf("%s reached a client: …%s…", cr.kind, out[max(0, i-100):min(len(out), i+len(cr.value)+20)])
		}
	}
}

// TestSecretFalsePositives (issue 14, 5): test files that name tokens and
// passwords by identifier are not excluded as secrets, while files with a
// literal credential are; the index summary, `status --excluded` and the
// stats tool say which files were excluded and by which rule.
func TestSecretFalsePositives(t *testing.T) {
	dir := t.TempDir()
	ordinary := map[string]string{
		"auth/refresh_test.go": `package auth

import "testing"

func TestRefreshRequest(t *testing.T) {
	tests := []struct{ name, requestRefreshToken, expectedAccessTokenValue, passwordFromFixture string }{
		{name: "plain"},
	}
	for _, tt := range tests {
		req := Request{
			RequestRefreshToken: tt.requestRefreshToken,
			AccessToken:         tt.expectedAccessTokenValue,
			Password:            tt.passwordFromFixture,
		}
		refreshToken = newRefreshTokenForRequest(req)
		token = someVeryLongIdentifierName
		_ = req // golden zebra refresh
	}
}
`,
		"web/session.test.js": `describe("session", () => {
  it("refreshes", async () => {
    const token = await client.getAccessToken(userCredentials);
    expect(result.refreshToken).toEqual(mockRefreshTokenValue);
    const headers = { authToken: session.currentAuthTokenValue, idToken: fixtures.validIdTokenPayload };
    // golden zebra session
  });
});
`,
		"tests/test_login.py": `class LoginTest(TestCase):
    def test_login(self):
        token = self.client.obtain_access_token(username, password)
        self.assertEqual(resp.json()["token"], expected_token_value)
        password = factory.make_password_for_user(user)
        refresh(refresh_token=refresh_token_from_response, token_type=default_token_type_name)
        # golden zebra login
`,
	}
	for rel, body := range ordinary {
		writeFile(t, filepath.Join(dir, rel), body)
	}
	writeFile(t, filepath.Join(dir, "deploy/creds.txt"), "ci token = 9f8e7d6c5b4a39281706abcd\n")
	writeFile(t, filepath.Join(dir, "aws.txt"), "aws_access_key_id = AKIA"+"QX7EZ2RPNW5K3MYT\n")
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	srv := p.connect()
	done := p.wait("index_complete", 60*time.Second)
	msg, _ := done.Data["message"].(string)
	for _, want := range []string{"2 file(s) excluded as secrets", "aws.txt (security.secret_patterns[0] (aws_access_key_id))",
		"deploy/creds.txt (security.secret_patterns[3] (generic_token))", "status --excluded"} {
		if !strings.Contains(msg, want) {
			t.Errorf("index summary does not say %q:\n%s", want, msg)
		}
	}
	c := newMCP(t, srv)
	c.initialize()
	found := map[string]bool{}
	for _, h := range c.search("golden zebra", map[string]any{"k": 10}).Hits {
		found[h.RelPath] = true
	}
	for rel := range ordinary {
		if !found[rel] {
			t.Errorf("%s is not searchable: excluded as a secret? %v", rel, found)
		}
	}
	var stats struct {
		Documents struct {
			SecretExcluded []struct {
				RelPath string `json:"rel_path"`
				Rule    string
			} `json:"secret_excluded"`
		}
	}
	r := c.tool("dir2mcp.stats", map[string]any{})
	json.Unmarshal(r.StructuredContent, &stats)
	if got := fmt.Sprint(stats.Documents.SecretExcluded); got != "[{aws.txt security.secret_patterns[0] (aws_access_key_id)} {deploy/creds.txt security.secret_patterns[3] (generic_token)}]" {
		t.Errorf("stats secret_excluded = %s", got)
	}
	if !strings.Contains(r.Content[0].Text, "2 file(s) excluded as secrets") {
		t.Errorf("stats summary: %s", r.Content[0].Text)
	}
	out, err := exec.Command(bin("dir2mcp"), "status", "--dir", dir, "--excluded").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "2 file(s) kept out of the index for security (never served):\naws.txt  SECRET_EXCLUDED  security.secret_patterns[0] (aws_access_key_id)\n" +
		"deploy/creds.txt  SECRET_EXCLUDED  security.secret_patterns[3] (generic_token)\n"; string(out) != want {
		t.Errorf("status --excluded:\n%s\nwant:\n%s", out, want)
	}
	out, _ = exec.Command(bin("dir2mcp"), "status", "--dir", dir, "--excluded", "--json").Output()
	var js struct {
		Excluded []struct {
			RelPath string `json:"rel_path"`
		}
	}
	if json.Unmarshal(out, &js) != nil || len(js.Excluded) != 2 {
		t.Errorf("status --excluded --json: %s", out)
	}
	for _, v := range []string{"9f8e7d6c5b4a39281706abcd", "QX7EZ2RPNW5K3MYT"} {
		if strings.Contains(p.lines.String()+p.stderr.String()+string(out)+string(r.StructuredContent), v) {
			t.Errorf("a secret value reached an output")
		}
	}
}
