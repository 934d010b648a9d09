package clusters

import (
	"errors"
	"net/http"
	"sync"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	corev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

//go:generate go run ../../hack/lazyclientset -out lazy_groups.go

// Lazy is a kubernetes.Interface that makes each API group's client the
// first time it is asked for. kubernetes.NewForConfig makes all 55 at once,
// running code in as many packages: a one-shot triage, which reads a
// handful of groups, paid several MiB of resident memory for the rest.
// Every group shares one transport and one rate limiter, as in
// NewForConfig; that transport is the config's, so a one-shot run's
// clientset, made from a config its Bound wraps, ends every group's
// requests and discovery's with the run, whenever the group is made.
type Lazy struct {
	cfg  rest.Config
	http *http.Client
	g    groups
	disc slot[*discovery.DiscoveryClient]
}

var _ kubernetes.Interface = (*Lazy)(nil)

// NewLazy is kubernetes.NewForConfig, the groups made on first use. The
// core group is made here, so a config it rejects fails here, as it
// would in NewForConfig: every group's client is made from the same
// config in the same way.
func NewLazy(c *rest.Config) (*Lazy, error) {
	l := &Lazy{cfg: *c}
	if l.cfg.UserAgent == "" {
		l.cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	hc, err := rest.HTTPClientFor(&l.cfg)
	if err != nil {
		return nil, err
	}
	l.http = hc
	if l.cfg.RateLimiter == nil && l.cfg.QPS > 0 {
		if l.cfg.Burst <= 0 {
			return nil, errBurst
		}
		l.cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(l.cfg.QPS, l.cfg.Burst)
	}
	core, err := corev1.NewForConfigAndClient(&l.cfg, l.http)
	if err != nil {
		return nil, err
	}
	l.g.coreV1.once.Do(func() { l.g.coreV1.v = core })
	return l, nil
}

// Discovery is the discovery client, made on first use.
func (c *Lazy) Discovery() discovery.DiscoveryInterfaces {
	return get(c, &c.disc, discovery.NewDiscoveryClientForConfigAndClient)
}

// slot is one group's client, made once.
type slot[T any] struct {
	once sync.Once
	v    T
}

// get makes s's client on first use. mk fails only for a config the core
// group's client, made from the same config by NewLazy, already accepted.
func get[T any](c *Lazy, s *slot[T], mk func(*rest.Config, *http.Client) (T, error)) T {
	s.once.Do(func() {
		v, err := mk(&c.cfg, c.http)
		if err != nil {
			panic("kubernetes client: " + err.Error())
		}
		s.v = v
	})
	return s.v
}

var errBurst = errors.New("burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0")
