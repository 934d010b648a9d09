package clusterwatch

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/readonly"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// userClient is triage-user's client through the read-only transport, as
// the plugin has it.
func userClient(t *testing.T, c *testcluster.Cluster) kubernetes.Interface {
	t.Helper()
	client, err := kubernetes.NewForConfig(readonly.Config(c.UserConfig()))
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func TestScan(t *testing.T) {
	c := testcluster.Get(t)
	tests := []struct {
		name          string
		allNamespaces bool // needed to scan nodes
		setup         func(t *testing.T, ns string)
		want          []string
	}{
		{
			name:  "crash-looping pod",
			setup: func(t *testing.T, ns string) { crashLoopingPod(t, c, ns, "web") },
			want:  []string{"Pod/web CrashLoop critical"},
		},
		{
			name: "states a healthy pod passes through are no faults",
			setup: func(t *testing.T, ns string) {
				running := newPod(ns, "running")
				running.Status = runningStatus()
				c.CreatePod(t, running)
				notReady := newPod(ns, "not-ready")
				notReady.Status = runningStatus()
				notReady.Status.Conditions[1].Status = corev1.ConditionFalse
				c.CreatePod(t, notReady)
				crashed := newPod(ns, "crashed-once")
				crashed.Status = runningStatus()
				crashed.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}
				c.CreatePod(t, crashed)
				d := newDeployment(ns, "starting")
				d.Status = appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
					{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability."},
					{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated"},
				}}
				c.Create(t, d)
			},
		},
		{
			name: "deployment past its progress deadline",
			setup: func(t *testing.T, ns string) {
				d := newDeployment(ns, "web")
				d.Status = appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
					{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "web-1" has timed out progressing.`},
				}}
				c.Create(t, d)
			},
			want: []string{"Deployment/web DeploymentFailure critical"},
		},
		{
			name: "failed job",
			setup: func(t *testing.T, ns string) {
				j := newJob(ns, "migrate")
				now := metav1.Now()
				j.Status = batchv1.JobStatus{StartTime: &now, Failed: 1, Conditions: []batchv1.JobCondition{
					{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
					{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
				}}
				c.Create(t, j)
			},
			want: []string{"Job/migrate JobFailure critical"},
		},
		{
			name:          "node not ready, all namespaces",
			allNamespaces: true,
			setup: func(t *testing.T, ns string) {
				c.Create(t, &corev1.Node{
					ObjectMeta: metav1.ObjectMeta{Name: ns + "-node"},
					Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{
						Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown",
						Message: "Kubelet stopped posting node status.", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
					}}},
				})
				crashLoopingPod(t, c, ns, "web")
			},
			want: []string{"Node/{ns}-node NodeUnhealthy critical", "Pod/web CrashLoop critical"},
		},
		{
			name:  "another namespace is not scanned",
			setup: func(t *testing.T, ns string) { crashLoopingPod(t, c, c.Namespace(t), "web") },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := c.Namespace(t)
			tt.setup(t, ns)
			opts := Options{Client: userClient(t, c), Cluster: clusterName, Namespace: ns}
			if tt.allNamespaces {
				opts.Namespace = ""
			}
			evs, err := Scan(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ev := range evs {
				// All namespaces: other tests' faults and the harness's node
				// are there too.
				if tt.allNamespaces && ev.Namespace() != ns && !strings.HasPrefix(ev.ResourceName(), ns) {
					continue
				}
				got = append(got, summary(ev))
				checkEvent(t, c, ns, ev)
				if !strings.HasPrefix(ev.FaultID, "cluster-") {
					t.Errorf("%s: faultId %q, want the cluster source's prefix", summary(ev), ev.FaultID)
				}
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = strings.ReplaceAll(w, "{ns}", ns)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("faults:\n%s\nwant:\n  %s", describe(evs), strings.Join(want, "\n  "))
			}
		})
	}
}

// TestScanPagesAndBound: a scan reads in pages and stops at its bound,
// saying so.
func TestScanPagesAndBound(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		crashLoopingPod(t, c, ns, name)
	}
	cfg := readonly.Config(c.UserConfig())
	var podLists atomic.Int32
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if strings.HasSuffix(req.URL.Path, "/namespaces/"+ns+"/pods") {
				podLists.Add(1)
			}
			return rt.RoundTrip(req)
		})
	})
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name          string
		limits        scanLimits
		wantFaults    int
		wantTruncated bool
		wantPodLists  int32 // 0: not checked (the pager may read a page ahead)
	}{
		{"pages", scanLimits{pageSize: 2, maxFaults: 10}, 5, false, 3},
		{"bound", scanLimits{pageSize: 2, maxFaults: 3}, 3, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			podLists.Store(0)
			opts := Options{Client: client, Cluster: clusterName, Namespace: ns, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
			res, err := scan(context.Background(), opts, tt.limits)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.events) != tt.wantFaults || res.truncated != tt.wantTruncated || res.complete["Pod"] == tt.wantTruncated {
				t.Errorf("%d faults, truncated %v, complete %v; want %d, truncated %v", len(res.events), res.truncated, res.complete, tt.wantFaults, tt.wantTruncated)
			}
			if tt.wantPodLists > 0 && podLists.Load() != tt.wantPodLists {
				t.Errorf("%d pod list requests, want %d (pages of %d)", podLists.Load(), tt.wantPodLists, tt.limits.pageSize)
			}
			if logged := strings.Contains(logs.String(), "too many faulty objects"); logged != tt.wantTruncated {
				t.Errorf("logs:\n%s\nwant the bound logged: %v", logs.String(), tt.wantTruncated)
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestScanAccessErrors: a list the identity may not do is a clear error;
// what it may list is still scanned.
func TestScanAccessErrors(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashLoopingPod(t, c, ns, "web")
	// "pod-lister" may list pods in ns, nothing else.
	c.Create(t, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-lister", Namespace: ns},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}}},
	})
	c.Create(t, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-lister", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pod-lister"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "pod-lister"}},
	})
	as := func(user string) kubernetes.Interface {
		cfg := rest.CopyConfig(c.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		client, err := kubernetes.NewForConfig(readonly.Config(cfg))
		if err != nil {
			t.Fatal(err)
		}
		return client
	}

	tests := []struct {
		name       string
		user       string
		namespace  string
		wantFaults []string
		want       []string
	}{
		{
			name: "pods only", user: "pod-lister", namespace: ns,
			wantFaults: []string{"Pod/web CrashLoop critical"},
			want: []string{`cannot list deployments.apps in namespace "` + ns + `"`, `cannot list jobs.batch in namespace "` + ns + `"`,
				"forbidden", "needs list on pods, deployments.apps and jobs.batch in namespace " + ns},
		},
		{
			name: "nothing, all namespaces", user: "nobody",
			want: []string{"cannot list nodes: ", "cannot list pods in all namespaces", "needs list on pods, deployments.apps, jobs.batch and nodes in all namespaces"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := Scan(context.Background(), Options{Client: as(tt.user), Cluster: clusterName, Namespace: tt.namespace})
			if err == nil {
				t.Fatal("Scan returned no error, want access errors")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
			var got []string
			for _, ev := range evs {
				got = append(got, summary(ev))
			}
			if !slices.Equal(got, tt.wantFaults) {
				t.Errorf("faults %q, want %q", got, tt.wantFaults)
			}
		})
	}
}

// emitted collects what a Reconciler emits, one reconcile at a time.
type emitted struct {
	mu     sync.Mutex
	events []*fault.Event
	got    chan struct{}
}

func (e *emitted) emit(ev *fault.Event) {
	e.mu.Lock()
	e.events = append(e.events, ev)
	e.mu.Unlock()
	select {
	case e.got <- struct{}{}:
	default:
	}
}

// waitFor waits until every name in want has been emitted and returns the
// names emitted so far, sorted. A scan emits in list order (by name), so a
// barrier whose name sorts last (zz-…) is in only after everything its
// scan found.
func (e *emitted) waitFor(t *testing.T, want ...string) []string {
	t.Helper()
	timeout := time.After(deadline)
	for {
		e.mu.Lock()
		var names []string
		for _, ev := range e.events {
			names = append(names, ev.ResourceName())
		}
		e.mu.Unlock()
		all := true
		for _, w := range want {
			all = all && slices.Contains(names, w)
		}
		if all {
			slices.Sort(names)
			return names
		}
		select {
		case <-e.got:
		case <-timeout:
			t.Fatalf("%q not all emitted within %v; got %q", want, deadline, names)
		}
	}
}

// TestReconciler: after a gap, only faults that began since the previous
// scan and that the source did not report are emitted, once.
func TestReconciler(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashLoopingPod(t, c, ns, "before-the-watch")

	var logs bytes.Buffer
	var logMu sync.Mutex
	synced := make(chan struct{})
	rec, err := NewReconciler(Options{Client: userClient(t, c), Cluster: clusterName, Namespace: ns,
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil)), Synced: func() { close(synced) }})
	if err != nil {
		t.Fatal(err)
	}
	out := &emitted{got: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); rec.Run(ctx, out.emit) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(deadline):
			t.Errorf("Run did not return within %v of cancel", deadline)
		}
	})
	select {
	case <-synced:
	case <-time.After(deadline):
		t.Fatalf("the first scan did not finish within %v", deadline)
	}

	// During the gap: one fault begins unseen, one the source reports, and
	// one the source reports for another cluster (so not this one's).
	crashLoopingPod(t, c, ns, "during-the-gap")
	reported := crashLoopingPod(t, c, ns, "reported")
	observe := func(cluster string, p *corev1.Pod) {
		ev, err := fault.Synthesize(cluster, fault.Resource{APIVersion: "v1", Kind: "Pod", Name: p.Name, Namespace: p.Namespace},
			fault.TypeCrashLoop, fault.SeverityCritical, "from the source", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		rec.Observe(ev)
	}
	observe(clusterName, reported)
	// The source may name a fault otherwise than a scan does: the object
	// was reported, so the scan's CrashLoop for it is not new.
	renamed := crashLoopingPod(t, c, ns, "reported-as-podcrash")
	ev, err := fault.Synthesize(clusterName, fault.Resource{APIVersion: "v1", Kind: "Pod", Name: renamed.Name, Namespace: renamed.Namespace},
		fault.TypePodCrash, fault.SeverityWarning, "from the source", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	rec.Observe(ev)
	other := crashLoopingPod(t, c, ns, "reported-elsewhere")
	observe("another-cluster", other)
	rec.Gap(time.Second)
	// A scan emits in list order, one by one: wait for all it should find.
	if got, want := out.waitFor(t, "during-the-gap", "reported-elsewhere"), []string{"during-the-gap", "reported-elsewhere"}; !slices.Equal(got, want) {
		t.Errorf("after the first gap: emitted %q, want %q", got, want)
	}

	// A fault that is over and begins again is new; faults still there are not.
	p, err := c.Client.CoreV1().Pods(ns).Get(context.Background(), "during-the-gap", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status = runningStatus()
	c.SetStatus(t, p)
	crashLoopingPod(t, c, ns, "zz-barrier-1")
	rec.Gap(time.Second)
	out.waitFor(t, "zz-barrier-1")
	p.Status = crashLoopStatus(7)
	c.SetStatus(t, p)
	crashLoopingPod(t, c, ns, "zz-barrier-2")
	rec.Gap(time.Second)
	got := out.waitFor(t, "zz-barrier-2")
	want := []string{"during-the-gap", "during-the-gap", "reported-elsewhere", "zz-barrier-1", "zz-barrier-2"}
	if !slices.Equal(got, want) {
		t.Errorf("after the later gaps: emitted %q, want %q", got, want)
	}
	logMu.Lock()
	defer logMu.Unlock()
	for _, w := range []string{"noted the faults present now", "faulty=1", "reconciling after a gap", "faults=2"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("logs lack %q:\n%s", w, logs.String())
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// TestReconcilerLost: a fault that began after the watch started but
// before the gap, which the source never reported, is not the gap's: the
// scan at Lost notes it, and the Gap's scan emits only what began after.
func TestReconcilerLost(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	var logs bytes.Buffer
	var logMu sync.Mutex
	synced := make(chan struct{})
	rec, err := NewReconciler(Options{Client: userClient(t, c), Cluster: clusterName, Namespace: ns,
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil)), Synced: func() { close(synced) }})
	if err != nil {
		t.Fatal(err)
	}
	out := &emitted{got: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); rec.Run(ctx, out.emit) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-synced:
	case <-time.After(deadline):
		t.Fatalf("the first scan did not finish within %v", deadline)
	}

	crashLoopingPod(t, c, ns, "a-before-the-gap") // sorts first: a scan would emit it first
	rec.Lost(time.Now())
	noted := time.After(deadline)
	for {
		logMu.Lock()
		ok := strings.Contains(logs.String(), "noted the faults present as the gap began")
		logMu.Unlock()
		if ok {
			break
		}
		select {
		case <-noted:
			t.Fatalf("no scan as the gap began within %v", deadline)
		case <-time.After(20 * time.Millisecond):
		}
	}
	crashLoopingPod(t, c, ns, "during-the-gap")
	rec.Gap(time.Second)
	if got, want := out.waitFor(t, "during-the-gap"), []string{"during-the-gap"}; !slices.Equal(got, want) {
		t.Errorf("emitted %q, want %q", got, want)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logs.String(), "unreported=1") {
		t.Errorf("the scan as the gap began does not count pod a-before-the-gap:\n%s", logs.String())
	}
}
