package exclude

import (
	"fmt"
	"strings"
)

// DefaultPathExcludes is security.path_excludes: SPEC §16.2's list, then
// the other files that hold credentials by name — dotenv variants (.env.local,
// .env.production…; templates such as .env.example too: a negation here
// would keep the engine from pruning .git and node_modules whole), SSH
// private keys, key stores, and the credential files of netrc, PostgreSQL,
// git, Docker, AWS, npm, PyPI and Apache. Matched without case.
var DefaultPathExcludes = []string{
	"**/.git/**",
	"**/node_modules/**",
	"**/.dir2mcp/**",
	"**/.env",
	"**/*.pem",
	"**/*.key",
	"**/id_rsa",
	"**/.env.*",
	"**/id_dsa",
	"**/id_ecdsa",
	"**/id_ecdsa_sk",
	"**/id_ed25519",
	"**/id_ed25519_sk",
	"**/*.p12",
	"**/*.pfx",
	"**/*.jks",
	"**/*.keystore",
	"**/.netrc",
	"**/_netrc",
	"**/.pgpass",
	"**/.git-credentials",
	"**/.docker/config.json",
	"**/.aws/credentials",
	"**/.npmrc",
	"**/.pypirc",
	"**/.htpasswd",
}

// SpecSecretPatterns is security.secret_patterns exactly as SPEC §16.2
// lists it: AWS access key id, AWS secret access key (keyword or any
// 40-character base64-like run), context-anchored JWT, generic "token="
// value, and common API key formats. Its bare 40-character branch matches
// hex digests, go.sum lines, long identifiers and paths: on the Go standard
// library it excluded 797 of 11,408 files (7%), so it is not the default.
var SpecSecretPatterns = []string{
	`AKIA[0-9A-Z]{16}`,
	`(?i)aws(.{0,20})?secret|([0-9a-zA-Z/+=]{40})`,
	`(?i)(?:authorization\s*[:=]\s*bearer\s+|(?:access|id|refresh)_token\s*[:=]\s*)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
	`(?i)token\s*[:=]\s*[A-Za-z0-9_.-]{20,}`,
	`sk_[a-z0-9]{32}|api_[A-Za-z0-9]{32}`,
}

// DefaultSecretPatterns is the default security.secret_patterns:
// SpecSecretPatterns with two rules narrowed as SPEC §7.2's own tuning
// guidance says ("apply the 40-char branch only in credential-like
// contexts"):
//
//   - AWS secret: a 40-character run counts only as the whole value
//     assigned to a key whose name mentions aws, secret or private, e.g.
//     aws_secret_access_key = "wJalr…". It excludes 0 Go standard library
//     files.
//   - generic token (GenericTokenPattern): the value after "token:" or
//     "token=" must be a literal — a whole run of 20+ letters, digits, "_"
//     or "-" holding a digit, not followed by ".", "(" or another name
//     character — so code naming a token by identifier
//     (RequestRefreshToken: tt.requestRefreshToken,) is not a secret.
//
// Both still catch every must-hit sample in the tests.
var DefaultSecretPatterns = []string{
	SpecSecretPatterns[0],
	`(?i)aws(.{0,20})?secret|(?i)(?:aws|secret|private)[a-z0-9_.-]{0,30}["']?\s*[:=]\s*["']?[0-9a-zA-Z/+=]{40}(?:[^0-9a-zA-Z/+=]|$)`,
	SpecSecretPatterns[2],
	GenericTokenPattern,
	SpecSecretPatterns[4],
}

// GenericTokenPattern is the default generic-token rule: "token" then ":"
// or "=", an optional quote, and a literal of 20+ characters of
// [A-Za-z0-9_-] with at least one digit (spelled out by the position of
// its first digit, as RE2 has no lookahead), ending the run.
var GenericTokenPattern = func() string {
	var alts []string
	for k := 0; k < 20; k++ {
		alts = append(alts, fmt.Sprintf("[A-Za-z_-]{%d}[0-9][A-Za-z0-9_-]{%d,}", k, 19-k))
	}
	alts = append(alts, "[A-Za-z_-]{20,}[0-9][A-Za-z0-9_-]*")
	return `(?i)token\s*[:=]\s*["']?(?:` + strings.Join(alts, "|") + `)(?:[^A-Za-z0-9_.(-]|$)`
}()

// secretKinds names the default secret patterns, for messages.
var secretKinds = map[string]string{
	SpecSecretPatterns[0]:    "aws_access_key_id",
	SpecSecretPatterns[1]:    "aws_secret_access_key (spec form)",
	DefaultSecretPatterns[1]: "aws_secret_access_key",
	SpecSecretPatterns[2]:    "jwt",
	SpecSecretPatterns[3]:    "generic_token (spec form)",
	GenericTokenPattern:      "generic_token",
	SpecSecretPatterns[4]:    "api_key_formats",
}

// SecretKindOf names a secret pattern of the defaults (or the spec's), ""
// for an operator's own.
func SecretKindOf(pattern string) string { return secretKinds[pattern] }
