package kubeflags

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
)

// TestFlagsAreKubectls: the names and short names a user types to kubectl
// reach the same settings here.
func TestFlagsAreKubectls(t *testing.T) {
	f := NewConfigFlags(false)
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f.AddFlags(fs)
	for _, name := range []string{"kubeconfig", "cache-dir", "client-certificate", "client-key", "token", "as", "as-uid", "as-group",
		"username", "password", "cluster", "user", "namespace", "context", "server", "tls-server-name", "insecure-skip-tls-verify",
		"certificate-authority", "request-timeout", "disable-compression"} {
		if fs.Lookup(name) == nil {
			t.Errorf("no --%s", name)
		}
	}
	for short, name := range map[string]string{"n": "namespace", "s": "server"} {
		if fl := fs.ShorthandLookup(short); fl == nil || fl.Name != name {
			t.Errorf("-%s is not --%s", short, name)
		}
	}
}

// TestOverridesApply: flags override the kubeconfig as kubectl's do.
func TestOverridesApply(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "config")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
current-context: a
contexts:
- name: a
  context: {cluster: a, user: a, namespace: from-file}
- name: b
  context: {cluster: b, user: a}
clusters:
- name: a
  cluster: {server: "https://a.example:6443"}
- name: b
  cluster: {server: "https://b.example:6443"}
users:
- name: a
  user: {token: file-token}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name              string
		args              []string
		host, token, ns   string
		impersonate       string
		impersonateGroups int
	}{
		{"kubeconfig alone", nil, "https://a.example:6443", "file-token", "from-file", "", 0},
		{"context", []string{"--context", "b"}, "https://b.example:6443", "file-token", "default", "", 0},
		{"server, token and namespace", []string{"-s", "https://c.example", "--token", "flag-token", "-n", "ns1"}, "https://c.example", "flag-token", "ns1", "", 0},
		{"impersonation", []string{"--as", "jane", "--as-group", "g1", "--as-group", "g2"}, "https://a.example:6443", "file-token", "from-file", "jane", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := NewConfigFlags(true)
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			f.AddFlags(fs)
			if err := fs.Parse(append([]string{"--kubeconfig", kubeconfig}, c.args...)); err != nil {
				t.Fatal(err)
			}
			cfg, err := f.ToRESTConfig()
			if err != nil {
				t.Fatal(err)
			}
			ns, _, err := f.ToRawKubeConfigLoader().Namespace()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != c.host || cfg.BearerToken != c.token || ns != c.ns || cfg.Impersonate.UserName != c.impersonate || len(cfg.Impersonate.Groups) != c.impersonateGroups {
				t.Errorf("got host %s token %s namespace %s as %q groups %v, want %s %s %s %q (%d groups)",
					cfg.Host, cfg.BearerToken, ns, cfg.Impersonate.UserName, cfg.Impersonate.Groups, c.host, c.token, c.ns, c.impersonate, c.impersonateGroups)
			}
		})
	}
}

// TestWrapConfigFn: every REST config passes the wrapper (the read-only
// transport is installed there).
func TestWrapConfigFn(t *testing.T) {
	f := NewConfigFlags(true)
	*f.APIServer = "https://x.example"
	wrapped := 0
	f.WrapConfigFn = func(c *rest.Config) *rest.Config { wrapped++; c.UserAgent = "wrapped"; return c }
	cfg, err := f.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if wrapped != 1 || cfg.UserAgent != "wrapped" {
		t.Errorf("WrapConfigFn ran %d times, user agent %q", wrapped, cfg.UserAgent)
	}
}

// TestDiscoveryCacheDirIsKubectls: a triage reads and warms the discovery
// cache kubectl keeps for the same server.
func TestDiscoveryCacheDirIsKubectls(t *testing.T) {
	for host, want := range map[string]string{
		"https://10.0.0.1:6443":         "/c/10.0.0.1_6443",
		"http://127.0.0.1:8080":         "/c/127.0.0.1_8080",
		"https://api.example.com/proxy": "/c/api.example.com/proxy",
	} {
		if got := discoveryCacheDir("/c", host); got != want {
			t.Errorf("discoveryCacheDir(%q) = %q, want %q", host, got, want)
		}
	}
}
