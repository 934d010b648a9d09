// Package leader is watch mode's high availability (DESIGN.md §9): replicas
// elect one leader through a coordination.k8s.io Lease, written by a client
// that can touch nothing but that Lease (LeaseOnlyConfig); followers keep
// their sources warm and remember the faults they see (Gate), and a new
// leader triages the remembered faults no incident covers (Handover).
package leader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// The usual leader-election defaults (kube-controller-manager's).
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// serviceAccountNamespace is where a pod finds its own namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Namespace is the default namespace of the Lease: the pod's own when the
// process runs in the cluster, else the kubeconfig context's (contextNS).
func Namespace(contextNS string) string {
	return namespaceFrom(serviceAccountNamespace, contextNS)
}

func namespaceFrom(file, contextNS string) string {
	if b, err := os.ReadFile(file); err == nil {
		if ns := strings.TrimSpace(string(b)); ns != "" {
			return ns
		}
	}
	if contextNS == "" {
		return "default"
	}
	return contextNS
}

var notDNS = regexp.MustCompile(`[^a-z0-9-]+`)

// LeaseName names the Lease for a watch: replicas of one watch (same
// source, endpoint and namespace) share it, and different watches in one
// namespace do not.
func LeaseName(source, endpoint, namespace string) string {
	name := "kubectl-triage-watch"
	for _, part := range []string{source, namespace, endpoint} {
		if part == "" || part == "cluster" {
			continue
		}
		name += "-" + strings.Trim(notDNS.ReplaceAllString(strings.ToLower(part), "-"), "-")
	}
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	return name
}

// Config configures an Elector.
type Config struct {
	// Config is the plain connection config (not the read-only one); the
	// Elector restricts it to the Lease with LeaseOnlyConfig.
	Config    *rest.Config
	Namespace string
	Name      string
	// Identity names this replica in the Lease; "" makes one from the
	// host name and a random suffix (a restarted process is a new holder).
	Identity                                  string
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	Logger                                    *slog.Logger
}

// Elector runs leader election for one watch.
type Elector struct {
	cfg     Config
	client  kubernetes.Interface
	le      *leaderelection.LeaderElector
	leading atomic.Bool
	lost    chan struct{}
	started func(context.Context)
}

// New checks cfg and builds the Lease lock on a lease-only client.
// started runs, on its own goroutine, each time this replica becomes the
// leader; its context ends when leadership ends.
func New(cfg Config, started func(ctx context.Context)) (*Elector, error) {
	if cfg.Config == nil {
		return nil, errors.New("leader: no connection config")
	}
	if cfg.Namespace == "" || cfg.Name == "" {
		return nil, errors.New("leader: the Lease needs a namespace and a name")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Identity == "" {
		host, _ := os.Hostname()
		cfg.Identity = host + "_" + uuid.NewString()[:8]
	}
	Collectors() // client-go reads its metrics provider when the elector is made
	cs, err := kubernetes.NewForConfig(LeaseOnlyConfig(cfg.Config, cfg.Namespace, cfg.Name))
	if err != nil {
		return nil, fmt.Errorf("leader election client: %w", err)
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: cfg.Namespace, Name: cfg.Name},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: cfg.Identity}, // no EventRecorder: events would be a write
	}
	e := &Elector{cfg: cfg, client: cs, lost: make(chan struct{}), started: started}
	e.le, err = leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:          lock,
		LeaseDuration: cfg.LeaseDuration,
		RenewDeadline: cfg.RenewDeadline,
		RetryPeriod:   cfg.RetryPeriod,
		// A replica that stops on SIGTERM hands over at once rather than
		// after a lease duration.
		ReleaseOnCancel: true,
		Name:            cfg.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				e.leading.Store(true)
				cfg.Logger.Info("leader election: leading", "lease", cfg.Namespace+"/"+cfg.Name, "identity", cfg.Identity)
				if e.started != nil {
					e.started(ctx)
				}
			},
			OnStoppedLeading: func() {
				if e.leading.Swap(false) {
					cfg.Logger.Warn("leader election: lost the lease", "lease", cfg.Namespace+"/"+cfg.Name, "identity", cfg.Identity)
					close(e.lost)
				}
			},
			OnNewLeader: func(id string) {
				if id != cfg.Identity {
					cfg.Logger.Info("leader election: following", "lease", cfg.Namespace+"/"+cfg.Name, "leader", id)
				}
			},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("leader election: %w", err)
	}
	return e, nil
}

// Check reads the Lease once, so that a Lease the credentials may not read
// (RBAC) is an error at start rather than a replica that silently never
// leads: client-go's elector only logs, and the plugin discards its logs.
func (e *Elector) Check(ctx context.Context) error {
	_, err := e.client.CoordinationV1().Leases(e.cfg.Namespace).Get(ctx, e.cfg.Name, metav1.GetOptions{})
	if err == nil || apierrors.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("leader election: read Lease %s/%s: %w (the watch needs get, create and update on leases in that namespace)", e.cfg.Namespace, e.cfg.Name, err)
}

// Run campaigns for the Lease until ctx ends or leadership, once held, is
// lost (then Lost is closed). With ctx ended while leading, the Lease is
// released so a follower takes over at once.
func (e *Elector) Run(ctx context.Context) {
	e.le.Run(ctx)
}

// Start campaigns in the background for as long as a watch runs. When a
// Lease this replica held is lost, onLost is called (the watch must stop
// triaging: another replica may lead already). stop ends the campaign and,
// when leading, releases the Lease; call it once the watch has drained, so
// that a successor finds every incident this replica started.
func (e *Elector) Start(onLost func()) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			e.Run(ctx)
			select {
			case <-e.lost:
				return
			default:
			}
		}
	}()
	go func() {
		select {
		case <-e.lost:
			onLost()
		case <-done:
		}
	}()
	return func() { cancel(); <-done }
}

// Leading reports whether this replica holds the Lease now.
func (e *Elector) Leading() bool { return e.leading.Load() }

// Lost is closed when this replica loses a Lease it held: it must stop
// triaging, since another replica may be leading already.
func (e *Elector) Lost() <-chan struct{} { return e.lost }

// Role is "leader" or "follower", for /healthz and logs.
func (e *Elector) Role() string {
	if e.Leading() {
		return "leader"
	}
	return "follower"
}

// Identity is this replica's name in the Lease.
func (e *Elector) Identity() string { return e.cfg.Identity }
