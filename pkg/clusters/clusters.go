// Package clusters holds the read-only clients of the kubeconfig contexts a
// process triages on, made once per context and shared by every triage:
// the one-shot command uses one, watch mode one per cluster its faults
// name, the MCP server one per context its callers ask for.
package clusters

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"sync"

	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
)

// Client is one kubeconfig context's read-only access.
type Client struct {
	// Name is the context's name, as the cluster source and MCP servers
	// name clusters (the cluster's name when the context has none).
	Name string
	// Flags are the user's connection flags, with this context.
	Flags     *kubeflags.ConfigFlags
	Config    *rest.Config
	Clientset kubernetes.Interface
	// Info names the cluster in reports; Info.Namespace is the context's
	// namespace, for faults and targets that name none.
	Info bundle.ClusterInfo
	// Upstream is the identity an exec agent's read-only gateway forwards
	// with (set by Options.Prepare); nil gives the agent no cluster access.
	Upstream *rest.Config

	// version is the server's version, asked for once when the client is
	// made and awaited only where it is written (cluster-info.json): it
	// is no run's first answer. Nil: Info.ServerVersion as set.
	version *serverVersion
}

// serverVersion is /version's answer, read once in the background.
type serverVersion struct {
	done chan struct{}
	v    string
}

func askServerVersion(cs kubernetes.Interface) *serverVersion {
	s := &serverVersion{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if v, err := cs.Discovery().ServerVersion(); err == nil {
			s.v = v.GitVersion
		}
	}()
	return s
}

// ServerVersion is the server's git version ("" when it did not say),
// waiting for its answer, or for ctx.
func (c *Client) ServerVersion(ctx context.Context) string {
	if c.version == nil {
		return c.Info.ServerVersion
	}
	select {
	case <-c.version.done:
		return c.version.v
	case <-ctx.Done():
		return ""
	}
}

// Options configure a Cache.
type Options struct {
	// Flags are the user's connection flags (their WrapConfigFn makes
	// every client read-only).
	Flags *kubeflags.ConfigFlags
	// Prepare completes a new client before it is cached: the agent's
	// upstream identity and any credential check. An error leaves nothing
	// cached, so the next fault for that cluster tries again.
	Prepare func(ctx context.Context, c *Client) error
	// Logger logs the faults that name an unknown cluster; nil discards.
	Logger *slog.Logger
}

// Cache makes each context's client once. Safe for concurrent use.
type Cache struct {
	opts Options

	mu          sync.Mutex
	clients     map[string]*Client // by context name; "" is the current context
	contexts    map[string]bool    // the kubeconfig's contexts, read with the first client
	warned      map[string]bool    // cluster names warned about
	defaultName string
}

// New returns an empty cache.
func New(opts Options) *Cache {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Cache{opts: opts, clients: map[string]*Client{}, contexts: map[string]bool{}, warned: map[string]bool{}}
}

// Get is the client of a kubeconfig context ("" is the current one, with
// the user's own flags), made on first use.
func (c *Cache) Get(ctx context.Context, name string) (*Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.clients[name]; ok {
		return cl, nil
	}
	flags := c.opts.Flags
	if name != "" && name != c.defaultName {
		raw, err := c.opts.Flags.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return nil, fmt.Errorf("read kubeconfig: %w", err)
		}
		if _, ok := raw.Contexts[name]; !ok {
			return nil, fmt.Errorf("context %q is not in the kubeconfig: see kubectl config get-contexts", name)
		}
		flags = WithContext(c.opts.Flags, name)
	}
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cs, err := NewLazy(cfg)
	if err != nil {
		return nil, err
	}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig: %w", err)
	}
	info := Info(flags, ns, cfg)
	cl := &Client{Name: info.Context, Flags: flags, Config: cfg, Clientset: cs, Info: info, version: askServerVersion(cs)}
	if cl.Name == "" {
		cl.Name = info.Cluster
	}
	if c.opts.Prepare != nil {
		if err := c.opts.Prepare(ctx, cl); err != nil {
			return nil, err
		}
	}
	c.clients[name] = cl
	if name == "" {
		c.defaultName = cl.Name
		c.clients[cl.Name] = cl
		if raw, err := c.opts.Flags.ToRawKubeConfigLoader().RawConfig(); err == nil {
			for n := range raw.Contexts {
				c.contexts[n] = true
			}
		}
	}
	return cl, nil
}

// ClusterOf names the kubeconfig context a fault naming cluster is triaged
// on: that context, when the kubeconfig has it (a multi-cluster MCP server
// names clusters by its contexts), else the current one (logged once per
// unknown name). Faults that map to one context share its queue, so one
// triage at a time holds per cluster. The current context must have been
// got (Get(ctx, "")) first.
func (c *Cache) ClusterOf(cluster string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cluster == "" || cluster == c.defaultName {
		return c.defaultName
	}
	if c.contexts[cluster] {
		return cluster
	}
	if !c.warned[cluster] {
		c.warned[cluster] = true
		c.opts.Logger.Warn("faults name a cluster with no kubeconfig context of that name: triaging them with the current context", "cluster", cluster, "context", c.defaultName)
	}
	return c.defaultName
}

// WithContext copies the user's connection flags with another context.
func WithContext(f *kubeflags.ConfigFlags, name string) *kubeflags.ConfigFlags {
	c := kubeflags.NewConfigFlags(true)
	c.KubeConfig, c.AuthInfoName, c.ClusterName = f.KubeConfig, nil, nil
	c.Insecure, c.TLSServerName, c.CAFile, c.CertFile, c.KeyFile = f.Insecure, f.TLSServerName, f.CAFile, f.CertFile, f.KeyFile
	c.Impersonate, c.ImpersonateUID, c.ImpersonateGroup = f.Impersonate, f.ImpersonateUID, f.ImpersonateGroup
	c.Timeout, c.CacheDir, c.DisableCompression = f.Timeout, f.CacheDir, f.DisableCompression
	c.WrapConfigFn = f.WrapConfigFn
	c.Context = &name
	return c
}

// Info names the cluster for the report: context and cluster from the
// kubeconfig and the server's host (never its credentials); its version is
// Client.ServerVersion.
func Info(flags *kubeflags.ConfigFlags, namespace string, cfg *rest.Config) bundle.ClusterInfo {
	info := bundle.ClusterInfo{Namespace: namespace}
	if raw, err := flags.ToRawKubeConfigLoader().RawConfig(); err == nil {
		info.Context = raw.CurrentContext
		if flags.Context != nil && *flags.Context != "" {
			info.Context = *flags.Context
		}
		if c, ok := raw.Contexts[info.Context]; ok {
			info.Cluster = c.Cluster
		}
		if flags.ClusterName != nil && *flags.ClusterName != "" {
			info.Cluster = *flags.ClusterName
		}
	}
	if u, err := url.Parse(cfg.Host); err == nil {
		info.Server = u.Host
	}
	return info
}
