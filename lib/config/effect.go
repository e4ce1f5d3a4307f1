package config

// effectNotes are the comments `config print` puts beside keys whose
// effect is not plain from their value, keyed by path.
func effectNotes(c *Config) map[string]string {
	rl := c.Server.RateLimit
	note := "loopback clients (127.0.0.0/8, ::1) are never rate limited; rps/burst apply to other machines' clients (--public)"
	switch {
	case rl.RPS <= 0:
		note = "no client is rate limited (rps 0)"
	case rl.Loopback:
		note = "every client is rate limited, loopback included"
	}
	return map[string]string{"server.rate_limit.loopback": note}
}
