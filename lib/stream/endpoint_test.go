package stream

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func TestParse(t *testing.T) {
	ep, err := Parse("--from", "nats://a:4222,b/d2m.docs")
	if err != nil {
		t.Fatal(err)
	}
	if ep.Subject != "d2m.docs" || strings.Join(ep.Servers, " ") != "nats://a:4222 nats://b:4222" || ep.TLS {
		t.Errorf("parsed %+v", ep)
	}
	if ep.String() != "nats://a:4222,b:4222/d2m.docs" {
		t.Errorf("String() = %s", ep)
	}
	if ep, err := Parse("--to", "tls://h:4443/x"); err != nil || !ep.TLS || ep.Servers[0] != "tls://h:4443" {
		t.Errorf("tls: %+v %v", ep, err)
	}
	for _, bad := range []string{"http://h/x", "nats://h", "nats://h/", "nats://h/a.*", "nats://h/a..b", "nats://,h/x", "nats://u:p@h/x"} {
		_, err := Parse("--from", bad)
		if errcode.Of(err) != errcode.ConfigInvalid {
			t.Errorf("%s: %v, want CONFIG_INVALID", bad, err)
		}
		if strings.Contains(bad, "@") && (err == nil || strings.Contains(err.Error(), "u:p") || !strings.Contains(err.Error(), "NATS_USER")) {
			t.Errorf("credentials in the URL: %v (must point to the environment and not echo them)", err)
		}
	}
}

func TestEnvOptions(t *testing.T) {
	t.Setenv(EnvCreds, filepath.Join(t.TempDir(), "missing.creds"))
	if _, err := envOptions(Endpoint{}); errcode.Of(err) != errcode.ConfigInvalid || !strings.Contains(err.Error(), EnvCreds) {
		t.Errorf("missing creds file: %v", err)
	}
	t.Setenv(EnvCreds, "")
	t.Setenv(EnvTLSCert, "/x.pem")
	if _, err := envOptions(Endpoint{}); errcode.Of(err) != errcode.ConfigInvalid {
		t.Errorf("cert without key: %v", err)
	}
	t.Setenv(EnvTLSCert, "")
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, []byte("x"), 0o600)
	t.Setenv(EnvTLSCA, ca)
	t.Setenv(EnvUser, "u")
	t.Setenv(EnvPassword, "p")
	opts, err := envOptions(Endpoint{})
	if err != nil || len(opts) != 3 { // user, CA, secure
		t.Errorf("options %d, %v", len(opts), err)
	}
}
