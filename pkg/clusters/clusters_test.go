package clusters

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"
)

// A kubeconfig with two contexts on loopback ports nothing listens on: the
// cache never needs the servers (the version lookup fails fast and is
// optional), so what is tested is which context each name gets, once.
const kubeconfig = `apiVersion: v1
kind: Config
current-context: prod-admin
clusters:
- name: prod
  cluster: {server: "https://127.0.0.1:1"}
- name: staging
  cluster: {server: "https://127.0.0.1:2"}
users:
- name: me
  user: {token: not-a-real-token}
contexts:
- name: prod-admin
  context: {cluster: prod, user: me, namespace: shop}
- name: staging
  context: {cluster: staging, user: me}
`

func newCache(t *testing.T, prepare func(context.Context, *Client) error, log *bytes.Buffer) *Cache {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := kubeflags.NewConfigFlags(false)
	flags.KubeConfig = &path
	return New(Options{Flags: flags, Prepare: prepare, Logger: slog.New(slog.NewTextHandler(log, nil))})
}

func TestCache(t *testing.T) {
	var log bytes.Buffer
	prepared := map[string]int{}
	c := newCache(t, func(_ context.Context, cl *Client) error {
		prepared[cl.Name]++
		return nil
	}, &log)
	ctx := context.Background()

	def, err := c.Get(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if def.Name != "prod-admin" || def.Info.Cluster != "prod" || def.Info.Namespace != "shop" || def.Info.Server != "127.0.0.1:1" || def.Clientset == nil {
		t.Errorf("current context's client: %+v", def)
	}
	// The current context by name is the same client.
	if again, err := c.Get(ctx, "prod-admin"); err != nil || again != def {
		t.Errorf("prod-admin by name: %p %v, want the current context's %p", again, err, def)
	}
	other, err := c.Get(ctx, "staging")
	if err != nil {
		t.Fatal(err)
	}
	if other.Name != "staging" || other.Info.Cluster != "staging" || other.Info.Server != "127.0.0.1:2" || other.Info.Namespace != "default" {
		t.Errorf("staging's client: %+v", other)
	}
	if again, _ := c.Get(ctx, "staging"); again != other {
		t.Error("staging's client made twice")
	}
	if prepared["prod-admin"] != 1 || prepared["staging"] != 1 {
		t.Errorf("each client is prepared once: %v", prepared)
	}
	if _, err := c.Get(ctx, "nowhere"); err == nil || !strings.Contains(err.Error(), `context "nowhere" is not in the kubeconfig`) {
		t.Errorf("unknown context: %v", err)
	}

	for cluster, want := range map[string]string{"": "prod-admin", "prod-admin": "prod-admin", "staging": "staging", "eu-west": "prod-admin"} {
		if got := c.ClusterOf(cluster); got != want {
			t.Errorf("ClusterOf(%q) = %q, want %q", cluster, got, want)
		}
	}
	c.ClusterOf("eu-west")
	if n := strings.Count(log.String(), "no kubeconfig context of that name"); n != 1 {
		t.Errorf("an unknown cluster is warned about once, got %d:\n%s", n, log.String())
	}
}

// A client whose preparation failed (a refused credential check) is not
// kept: the next fault for that cluster tries again.
func TestCacheKeepsNoFailedClient(t *testing.T) {
	var log bytes.Buffer
	fail := true
	c := newCache(t, func(context.Context, *Client) error {
		if fail {
			return errors.New("your credentials can write in namespace shop")
		}
		return nil
	}, &log)
	if _, err := c.Get(context.Background(), ""); err == nil {
		t.Fatal("a failed preparation gave a client")
	}
	fail = false
	if cl, err := c.Get(context.Background(), ""); err != nil || cl.Name != "prod-admin" {
		t.Errorf("second try: %+v %v", cl, err)
	}
}
