// Package kubeflags is kubectl's connection flags (--kubeconfig, --context,
// -n, --server, --as …) and the clients they make: the REST config, the
// cached discovery client and the shortcut-expanding REST mapper, each
// from client-go.
//
// It stands in for cli-runtime's genericclioptions.ConfigFlags, whose
// package also holds the resource builder's flags and so links kustomize
// (sigs.k8s.io/kustomize/api/krusty, for kubectl's -k): 22 MB of binary and
// about 10 MiB of every run's resident memory that kubectl triage never
// uses (docs/DESIGN.md §10). The flags, their defaults and the on-disk
// discovery cache are kubectl's, so a triage shares kubectl's warm cache.
package kubeflags

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/disk"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/homedir"
)

// RESTClientGetter is what resolving and reading objects needs of the
// flags (the interface kubectl's commands take).
type RESTClientGetter interface {
	ToRESTConfig() (*rest.Config, error)
	ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error)
	ToRESTMapper() (meta.RESTMapper, error)
	ToRawKubeConfigLoader() clientcmd.ClientConfig
}

// ConfigFlags are the connection flags. A nil field is a flag not bound
// (AddFlags binds them all); an empty value is a flag not given.
type ConfigFlags struct {
	KubeConfig *string
	CacheDir   *string

	CertFile         *string
	KeyFile          *string
	BearerToken      *string
	Impersonate      *string
	ImpersonateUID   *string
	ImpersonateGroup *[]string
	Username         *string
	Password         *string

	ClusterName  *string
	AuthInfoName *string
	Context      *string
	Namespace    *string

	APIServer          *string
	TLSServerName      *string
	Insecure           *bool
	CAFile             *string
	DisableCompression *bool
	Timeout            *string

	// WrapConfigFn, when set, wraps every REST config the flags make
	// (the read-only transport is installed here).
	WrapConfigFn func(*rest.Config) *rest.Config

	persistent bool
	mu         sync.Mutex
	loader     clientcmd.ClientConfig
	discovery  discovery.CachedDiscoveryInterface
	mapper     meta.RESTMapper
}

// Discovery is paced as kubectl paces it: a cold cache reads every group's
// document at once.
const (
	discoveryQPS   = 50
	discoveryBurst = 300
	discoveryTTL   = 6 * time.Hour
)

// NewConfigFlags returns the flags with kubectl's defaults. persistent
// keeps one kubeconfig loader and one discovery client for the process (a
// command's flags); without it each call reads the kubeconfig again.
func NewConfigFlags(persistent bool) *ConfigFlags {
	str := func(v string) *string { return &v }
	no := func() *bool { v := false; return &v }
	return &ConfigFlags{
		KubeConfig:         str(""),
		CacheDir:           str(defaultCacheDir()),
		CertFile:           str(""),
		KeyFile:            str(""),
		BearerToken:        str(""),
		Impersonate:        str(""),
		ImpersonateUID:     str(""),
		ImpersonateGroup:   &[]string{},
		Username:           str(""),
		Password:           str(""),
		ClusterName:        str(""),
		AuthInfoName:       str(""),
		Context:            str(""),
		Namespace:          str(""),
		APIServer:          str(""),
		TLSServerName:      str(""),
		Insecure:           no(),
		CAFile:             str(""),
		DisableCompression: no(),
		Timeout:            str("0"),
		persistent:         persistent,
	}
}

// AddFlags binds the flags under kubectl's names, short names and help.
func (f *ConfigFlags) AddFlags(fs *pflag.FlagSet) {
	strFlag := func(p *string, name, short, usage string) {
		if p != nil {
			fs.StringVarP(p, name, short, *p, usage)
		}
	}
	strFlag(f.KubeConfig, "kubeconfig", "", "Path to the kubeconfig file to use for CLI requests.")
	strFlag(f.CacheDir, "cache-dir", "", "Default cache directory")
	strFlag(f.CertFile, clientcmd.FlagCertFile, "", "Path to a client certificate file for TLS")
	strFlag(f.KeyFile, clientcmd.FlagKeyFile, "", "Path to a client key file for TLS")
	strFlag(f.BearerToken, clientcmd.FlagBearerToken, "", "Bearer token for authentication to the API server")
	strFlag(f.Impersonate, clientcmd.FlagImpersonate, "", "Username to impersonate for the operation. User could be a regular user or a service account in a namespace.")
	strFlag(f.ImpersonateUID, clientcmd.FlagImpersonateUID, "", "UID to impersonate for the operation.")
	if f.ImpersonateGroup != nil {
		fs.StringArrayVar(f.ImpersonateGroup, clientcmd.FlagImpersonateGroup, *f.ImpersonateGroup, "Group to impersonate for the operation, this flag can be repeated to specify multiple groups.")
	}
	strFlag(f.Username, clientcmd.FlagUsername, "", "Username for basic authentication to the API server")
	strFlag(f.Password, clientcmd.FlagPassword, "", "Password for basic authentication to the API server")
	strFlag(f.ClusterName, clientcmd.FlagClusterName, "", "The name of the kubeconfig cluster to use")
	strFlag(f.AuthInfoName, clientcmd.FlagAuthInfoName, "", "The name of the kubeconfig user to use")
	strFlag(f.Namespace, clientcmd.FlagNamespace, "n", "If present, the namespace scope for this CLI request")
	strFlag(f.Context, clientcmd.FlagContext, "", "The name of the kubeconfig context to use")
	strFlag(f.APIServer, clientcmd.FlagAPIServer, "s", "The address and port of the Kubernetes API server")
	strFlag(f.TLSServerName, clientcmd.FlagTLSServerName, "", "Server name to use for server certificate validation. If it is not provided, the hostname used to contact the server is used")
	if f.Insecure != nil {
		fs.BoolVar(f.Insecure, clientcmd.FlagInsecure, *f.Insecure, "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure")
	}
	strFlag(f.CAFile, clientcmd.FlagCAFile, "", "Path to a cert file for the certificate authority")
	if f.Timeout != nil {
		fs.StringVar(f.Timeout, clientcmd.FlagTimeout, *f.Timeout, "The length of time to wait before giving up on a single server request. Non-zero values should contain a corresponding time unit (e.g. 1s, 2m, 3h). A value of zero means don't timeout requests.")
	}
	if f.DisableCompression != nil {
		fs.BoolVar(f.DisableCompression, clientcmd.FlagDisableCompression, *f.DisableCompression, "If true, opt-out of response compression for all requests to the server")
	}
}

// ToRawKubeConfigLoader is the kubeconfig as the flags select and override
// it: --kubeconfig, else KUBECONFIG, else ~/.kube/config, else the
// in-cluster config.
func (f *ConfigFlags) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	if !f.persistent {
		return f.newLoader()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loader == nil {
		f.loader = f.newLoader()
	}
	return f.loader
}

func (f *ConfigFlags) newLoader() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	// Without a kubeconfig the server is client-go's default, which the
	// error messages recognise (target.noKubeconfig).
	rules.DefaultClientConfig = &clientcmd.DefaultClientConfig
	if v := deref(f.KubeConfig); v != "" {
		rules.ExplicitPath = v
	}
	o := &clientcmd.ConfigOverrides{ClusterDefaults: clientcmd.ClusterDefaults}
	o.AuthInfo.ClientCertificate = deref(f.CertFile)
	o.AuthInfo.ClientKey = deref(f.KeyFile)
	o.AuthInfo.Token = deref(f.BearerToken)
	o.AuthInfo.Impersonate = deref(f.Impersonate)
	o.AuthInfo.ImpersonateUID = deref(f.ImpersonateUID)
	if f.ImpersonateGroup != nil {
		o.AuthInfo.ImpersonateGroups = *f.ImpersonateGroup
	}
	o.AuthInfo.Username = deref(f.Username)
	o.AuthInfo.Password = deref(f.Password)
	o.ClusterInfo.Server = deref(f.APIServer)
	o.ClusterInfo.TLSServerName = deref(f.TLSServerName)
	o.ClusterInfo.CertificateAuthority = deref(f.CAFile)
	if f.Insecure != nil {
		o.ClusterInfo.InsecureSkipTLSVerify = *f.Insecure
	}
	if f.DisableCompression != nil {
		o.ClusterInfo.DisableCompression = *f.DisableCompression
	}
	o.Context.Cluster = deref(f.ClusterName)
	o.Context.AuthInfo = deref(f.AuthInfoName)
	o.Context.Namespace = deref(f.Namespace)
	o.CurrentContext = deref(f.Context)
	if v := deref(f.Timeout); v != "" && v != "0" {
		o.Timeout = v
	}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, o)
}

// ToRESTConfig is the REST config the flags select, wrapped by WrapConfigFn.
func (f *ConfigFlags) ToRESTConfig() (*rest.Config, error) {
	c, err := f.ToRawKubeConfigLoader().ClientConfig()
	if err != nil {
		return nil, err
	}
	if f.WrapConfigFn != nil {
		c = f.WrapConfigFn(c)
	}
	return c, nil
}

// ToDiscoveryClient is discovery through kubectl's on-disk cache
// (--cache-dir, ~/.kube/cache by default), laid out as kubectl lays it out.
func (f *ConfigFlags) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	if f.persistent {
		f.mu.Lock()
		d := f.discovery
		f.mu.Unlock()
		if d != nil {
			return d, nil
		}
	}
	c, err := f.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	c = rest.CopyConfig(c)
	c.QPS, c.Burst = discoveryQPS, discoveryBurst
	cacheDir := deref(f.CacheDir)
	if cacheDir == "" {
		cacheDir = defaultCacheDir()
	}
	d, err := disk.NewCachedDiscoveryClientForConfig(c, discoveryCacheDir(filepath.Join(cacheDir, "discovery"), c.Host), filepath.Join(cacheDir, "http"), discoveryTTL)
	if err != nil {
		return nil, err
	}
	if !f.persistent {
		return d, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.discovery == nil {
		f.discovery = d
	}
	return f.discovery, nil
}

// defaultCacheDir is kubectl's: KUBECACHEDIR, else ~/.kube/cache.
func defaultCacheDir() string {
	if v := os.Getenv("KUBECACHEDIR"); v != "" {
		return v
	}
	return filepath.Join(homedir.HomeDir(), ".kube", "cache")
}

// ToRESTMapper maps types as kubectl does: discovered lazily, with short
// names (deploy, sts, svc) expanded.
// With persistent flags the mapper is kept: it holds what it has
// discovered, so a second lookup (an error path's served-type check, a
// completion) reads nothing again.
func (f *ConfigFlags) ToRESTMapper() (meta.RESTMapper, error) {
	if f.persistent {
		f.mu.Lock()
		m := f.mapper
		f.mu.Unlock()
		if m != nil {
			return m, nil
		}
	}
	d, err := f.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	m := restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(d), d, nil)
	if !f.persistent {
		return m, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mapper == nil {
		f.mapper = m
	}
	return f.mapper, nil
}

// unsafeHostChars are the characters a server's host may not keep in a
// cache directory name (kubectl's rule, so both share the cache).
var unsafeHostChars = regexp.MustCompile(`[^(\w/.)]`)

// discoveryCacheDir is the server's directory under parent.
func discoveryCacheDir(parent, host string) string {
	host = strings.Replace(strings.Replace(host, "https://", "", 1), "http://", "", 1)
	return filepath.Join(parent, unsafeHostChars.ReplaceAllString(host, "_"))
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
