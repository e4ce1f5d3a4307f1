package exclude

// DefaultPathExcludes is security.path_excludes as SPEC §16.2 lists it.
var DefaultPathExcludes = []string{
	"**/.git/**",
	"**/node_modules/**",
	"**/.dir2mcp/**",
	"**/.env",
	"**/*.pem",
	"**/*.key",
	"**/id_rsa",
}

// DefaultSecretPatterns is security.secret_patterns as SPEC §16.2 lists it:
// AWS access key id, AWS secret access key (keyword or any 40-character
// base64-like run), context-anchored JWT, generic "token=" value, and common
// API key formats.
var DefaultSecretPatterns = []string{
	`AKIA[0-9A-Z]{16}`,
	`(?i)aws(.{0,20})?secret|([0-9a-zA-Z/+=]{40})`,
	`(?i)(?:authorization\s*[:=]\s*bearer\s+|(?:access|id|refresh)_token\s*[:=]\s*)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
	`(?i)token\s*[:=]\s*[A-Za-z0-9_.-]{20,}`,
	`sk_[a-z0-9]{32}|api_[A-Za-z0-9]{32}`,
}

// TunedSecretPatterns is DefaultSecretPatterns with the AWS secret rule
// narrowed as SPEC §7.2 suggests ("apply the 40-char branch only in
// credential-like contexts"): a 40-character run counts only as the whole
// value assigned to a key whose name mentions aws, secret or private, e.g.
// aws_secret_access_key = "wJalr…". Indexes match DefaultSecretPatterns.
var TunedSecretPatterns = []string{
	DefaultSecretPatterns[0],
	`(?i)aws(.{0,20})?secret|(?i)(?:aws|secret|private)[a-z0-9_.-]{0,30}["']?\s*[:=]\s*["']?[0-9a-zA-Z/+=]{40}(?:[^0-9a-zA-Z/+=]|$)`,
	DefaultSecretPatterns[2],
	DefaultSecretPatterns[3],
	DefaultSecretPatterns[4],
}
