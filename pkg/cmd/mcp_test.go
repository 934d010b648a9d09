package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPFlagErrors: the HTTP mode's safety rules refuse to start, with a
// message that says what to do, before anything listens.
func TestMCPFlagErrors(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	short := filepath.Join(dir, "short")
	empty := filepath.Join(dir, "empty")
	write(t, token, "0123456789abcdef0123456789abcdef\n")
	write(t, short, "abc\n")
	write(t, empty, "\n")
	os.Chmod(token, 0o600)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"listen without token", []string{"--listen", "127.0.0.1:0"}, "--listen needs --token-file"},
		{"not loopback without TLS", []string{"--listen", "0.0.0.0:0", "--token-file", token}, "not a loopback address"},
		{"all interfaces without TLS", []string{"--listen", ":0", "--token-file", token}, "not a loopback address"},
		{"token without listen", []string{"--token-file", token}, "add --listen"},
		{"cert without key", []string{"--listen", "127.0.0.1:0", "--token-file", token, "--tls-cert-file", token}, "go together"},
		{"short token", []string{"--listen", "127.0.0.1:0", "--token-file", short}, "at least 16"},
		{"empty token", []string{"--listen", "127.0.0.1:0", "--token-file", empty}, "is empty"},
		{"missing token file", []string{"--listen", "127.0.0.1:0", "--token-file", filepath.Join(dir, "nope")}, "--token-file"},
		{"bad address", []string{"--listen", "8080", "--token-file", token}, "want HOST:PORT"},
		{"bad concurrency", []string{"--max-concurrent", "0"}, "max-concurrent"},
		{"origin without listen", []string{"--allow-origin", "https://a.example"}, "are for the HTTP mode"},
		{"origin with a path", []string{"--listen", "127.0.0.1:0", "--token-file", token, "--allow-origin", "https://a.example/mcp"}, `invalid --allow-origin "https://a.example/mcp"`},
		{"origin wildcard", []string{"--listen", "127.0.0.1:0", "--token-file", token, "--allow-origin", "*"}, `invalid --allow-origin "*"`},
		{"origin not http", []string{"--listen", "127.0.0.1:0", "--token-file", token, "--allow-origin", "file:///tmp"}, "invalid --allow-origin"},
		{"read timeout zero", []string{"--read-timeout", "0s"}, "read-timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append([]string{"mcp", "--workspace-root", filepath.Join(dir, "ws")}, tt.args...)...)
			if r.code != 1 || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", r.code, r.stdout, r.stderr, tt.want)
			}
		})
	}
}
