package exclude

// CredentialKind is one kind of credential the default redaction patterns
// recognise: a name for documentation and tests, and its pattern.
type CredentialKind struct {
	Name    string
	Pattern string
}

// CredentialKinds are the default security.redact.patterns, each anchored
// on a provider's published key format or on a credential-shaped context
// (a key name, a URL's user-info, an Authorization header), so ordinary
// prose and code are left alone. Where a pattern has a SecretGroup only the
// value is masked ("password=[REDACTED]"), keeping the text readable.
var CredentialKinds = []CredentialKind{
	{"aws_access_key_id", `\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b`},
	{"aws_secret_access_key", `(?i)(?:aws|secret|private)[a-z0-9_.-]{0,30}["']?\s*[:=]\s*["']?(?P<secret>[0-9a-zA-Z/+=]{40})(?:[^0-9a-zA-Z/+=]|$)`},
	{"github_token", `\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})`},
	{"gitlab_token", `\bgl(?:pat|dt|rt|ptt|soat|cbt)-[A-Za-z0-9_-]{20,}`},
	{"slack_token", `\bxox[abposre]-[A-Za-z0-9-]{10,}`},
	{"slack_webhook", `https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}`},
	{"stripe_secret_key", `\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`},
	{"twilio_api_key", `\bSK[0-9a-f]{32}\b`},
	{"twilio_auth_token", `(?i)twilio[a-z0-9_.-]{0,20}["']?\s*[:=]\s*["']?(?P<secret>[0-9a-f]{32})\b`},
	{"sendgrid_api_key", `\bSG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{40,50}`},
	{"google_api_key", `\bAIza[0-9A-Za-z_-]{35}`},
	{"google_oauth_client_secret", `\bGOCSPX-[A-Za-z0-9_-]{20,}`},
	{"jwt", `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`},
	// A PEM private key (PKCS#1/#8, EC, DSA, OpenSSH, encrypted, PGP) to
	// its END line, or, cut off without one, its base64 body.
	{"private_key", `-----BEGIN[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,.-]*)`},
	{"putty_private_key", `PuTTY-User-Key-File-[0-9]+:[\s\S]*?Private-MAC:\s*[0-9a-fA-F]+`},
	{"url_credentials", `://[^\s:/@"'<>]{1,64}:(?P<secret>[^\s:/@"'<>]{3,})@`},
	{"password_assignment", `(?i)(?:password|passwd|pwd|secret|client_secret|api_?key|access_?token|auth_?token|private_?key)["']?\s*=\s*["']?(?P<secret>[^\s"'&;,<>(){}\[\]$=]{4,})(?:["'\s&;,]|$)`},
	{"password_field", `(?i)(?:password|passwd|secret|client_secret|api_?key|access_?token|auth_?token|private_?key)["']?\s*:\s*["'](?P<secret>[^\s"'$\[\]]{6,})["']`},
	// A YAML value: one word of 6+ characters, a shorter one with a digit
	// or symbol, or a passphrase of 2–8 plain words (no "=", brackets or
	// quotes: "password: str = x" or "secret: func(…) {" is code).
	{"password_yaml", `(?im)(?:password|passwd|secret|client_secret|api_?key|access_?token|auth_?token)\s*:[ \t]*(?P<secret>[^\s"'#{}$\[\],;]{6,}|[^\s"'#{}$\[\],;]*[0-9!@%^&*+~][^\s"'#{}$\[\],;]*|[A-Za-z0-9!@%^&*+~._-]+(?:[ \t]+[A-Za-z0-9!@%^&*+~._-]+){1,7})[ \t]*$`},
	// An upper-case setting or environment name holding a credential word,
	// matched from that word on (so the fast prefix search applies):
	// dotenv/shell style, NAME=value with no spaces (DB_PASS=…,
	// SECRET_KEY_BASE=…), or a quoted literal of 8+ characters on the same
	// line (JWT_SECRET = "…", PHP's define('DB_PASSWORD', '…')). Constants
	// (TOKEN_READ = STANDARD_RIGHTS_READ, PASS = 0x40), lookups and calls
	// are left alone.
	{"env_secret", `(?:PASS|PWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL|SALT)[A-Z0-9_]*=(?P<secret>[^\s"'$<>{}()\[\]]{8,})(?:[\s;,)]|$)`},
	{"env_secret_quoted", `(?:PASS|PWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL|SALT)[A-Z0-9_]*(?:["']?[ \t]*=|["'][ \t]*,)[ \t]*["'](?P<secret>[^"'\s]{8,})["']`},
	// A quoted literal assigned to token, secret_key, api_secret or auth
	// (token = "…", "auth": "…").
	{"quoted_token", `(?i)\b(?:token|secret_?key|api_?secret|auth)["']?\s*[:=]\s*["'](?P<secret>[^"'\s]{8,})["']`},
	{"kubeconfig_key", `(?i)\b(?:client-key-data|client-certificate-data)\s*:\s*(?P<secret>[A-Za-z0-9+/=]{20,})`},
	// Password hashes (htpasswd, shadow, bcrypt): crackable offline.
	{"password_hash", `\$(?:apr1|1)\$[./0-9A-Za-z]{0,8}\$[./0-9A-Za-z]{22}|\$[56]\$(?:rounds=[0-9]+\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{43,86}|\$2[aby]\$[0-9]{2}\$[./0-9A-Za-z]{53}`},
	{"azure_connection_string", `(?i)(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig)=(?P<secret>[A-Za-z0-9+/=%]{20,})`},
	{"npm_token", `\bnpm_[A-Za-z0-9]{36}\b`},
	{"npmrc_auth", `(?i)_auth(?:Token)?\s*=\s*(?P<secret>[^\s"']{8,})`},
	// OpenAI (sk-, sk-proj-, sk-svcacct-) and Anthropic (sk-ant-) style keys.
	{"sk_api_key", `\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}`},
	{"mistral_api_key", `(?i)mistral[a-z0-9_.-]{0,20}["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9]{32})\b`},
	{"netrc_password", `(?i)\bmachine\s+\S+\s+(?:login\s+\S+\s+)?password\s+(?P<secret>\S+)`},
	{"authorization_header", `(?i)\bauthorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|digest)\s+(?P<secret>[A-Za-z0-9._~+/=-]{8,})`},
	{"huggingface_token", `\bhf_[A-Za-z0-9]{30,}`},
	{"pypi_token", `\bpypi-AgE[A-Za-z0-9_-]{50,}`},
	{"telegram_bot_token", `:(?P<secret>AA[0-9A-Za-z_-]{33})\b`},
	{"digitalocean_token", `\bdo[por]_v1_[a-f0-9]{64}\b`},
	{"shopify_token", `\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`},
	// dir2mcp's own scoped bearer tokens (`dir2mcp token add`).
	{"dir2mcp_token", `\bd2m_[0-9a-f]{64}\b`},
}

// DefaultRedactPatterns is the default security.redact.patterns: the
// patterns of CredentialKinds.
var DefaultRedactPatterns = func() []string {
	out := make([]string, len(CredentialKinds))
	for i, k := range CredentialKinds {
		out[i] = k.Pattern
	}
	return out
}()

// KindOf names a redaction pattern: its CredentialKinds name, or "" for a
// pattern of the operator's own.
func KindOf(pattern string) string {
	for _, k := range CredentialKinds {
		if k.Pattern == pattern {
			return k.Name
		}
	}
	return ""
}
