package clusterwatch

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/readonly"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

func TestMain(m *testing.M) { os.Exit(testcluster.Main(m)) }

// Generous: the machine may be loaded; nothing here waits this long when
// things work.
const deadline = 60 * time.Second

const clusterName = "testcluster"

// recorder collects what Run emits.
type recorder struct {
	stats  Stats
	mu     sync.Mutex
	events []*fault.Event
}

func (r *recorder) emit(ev *fault.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) all() []*fault.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// waitFor polls until an emitted event matches.
func (r *recorder) waitFor(t *testing.T, what string, match func(*fault.Event) bool) *fault.Event {
	t.Helper()
	var found *fault.Event
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, deadline, true, func(context.Context) (bool, error) {
		for _, ev := range r.all() {
			if match(ev) {
				found = ev
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no fault event for %s within %v; got:\n%s", what, deadline, describe(r.all()))
	}
	return found
}

func describe(evs []*fault.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		fmt.Fprintf(&b, "  %s\n", summary(ev))
	}
	if b.Len() == 0 {
		return "  (none)\n"
	}
	return b.String()
}

// summary is what the table cases compare.
func summary(ev *fault.Event) string {
	return fmt.Sprintf("%s/%s %s %s", ev.ResourceKind(), ev.ResourceName(), ev.FaultType, ev.Severity)
}

// startWatch runs Run as triage-user through the read-only transport, as
// the plugin does, until the test ends, and waits for it to sync.
func startWatch(t *testing.T, c *testcluster.Cluster, opts Options) *recorder {
	t.Helper()
	client, err := kubernetes.NewForConfig(readonly.Config(c.UserConfig()))
	if err != nil {
		t.Fatal(err)
	}
	opts.Client, opts.Cluster = client, clusterName
	synced := make(chan struct{})
	opts.Synced = func() { close(synced) }
	r := &recorder{}
	opts.Stats = &r.stats
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, opts, r.emit) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v after cancel, want nil", err)
			}
		case <-time.After(deadline):
			t.Errorf("Run did not return within %v of cancel", deadline)
		}
	})
	select {
	case <-synced:
	case err := <-done:
		t.Fatalf("Run returned before sync: %v", err)
	case <-time.After(deadline):
		t.Fatalf("Run did not sync within %v", deadline)
	}
	return r
}

// podBarrier makes a fresh pod crash-loop and waits for its fault: the pod
// informer handles notifications in order, so every earlier pod change has
// been handled too.
func podBarrier(t *testing.T, c *testcluster.Cluster, ns string, r *recorder) {
	t.Helper()
	name := "barrier-" + utilrand.String(5)
	p := c.CreatePod(t, newPod(ns, name))
	p.Status = crashLoopStatus(1)
	c.SetStatus(t, p)
	r.waitFor(t, "barrier pod "+name, func(ev *fault.Event) bool {
		return ev.ResourceName() == name && ev.FaultType == fault.TypeCrashLoop
	})
}

// eventBarrier is podBarrier for the event informer.
func eventBarrier(t *testing.T, c *testcluster.Cluster, ns string, r *recorder) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "barrier-" + utilrand.String(5), Namespace: ns}}
	c.Create(t, cm)
	c.Event(t, testcluster.EventSpec{Object: cm, Reason: "BarrierReached", Message: "barrier", Component: "test"})
	r.waitFor(t, "barrier event for "+cm.Name, func(ev *fault.Event) bool {
		return ev.ResourceName() == cm.Name && ev.FaultType == "BarrierReached"
	})
}

func newPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36"}}},
	}
}

func runningStatus() corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue},
		},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", Image: "busybox:1.36", Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}},
		}},
	}
}

func crashLoopStatus(restarts int32) corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"},
		},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", Image: "busybox:1.36", RestartCount: restarts,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "CrashLoopBackOff", Message: "back-off 40s restarting failed container=app",
			}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}},
		}},
	}
}

// crashLoopingPod creates a running pod and then makes it crash-loop, as
// a kubelet would report it.
func crashLoopingPod(t *testing.T, c *testcluster.Cluster, ns, name string) *corev1.Pod {
	t.Helper()
	p := newPod(ns, name)
	p.Status = runningStatus()
	p = c.CreatePod(t, p)
	p.Status = crashLoopStatus(3)
	return c.SetStatus(t, p)
}

func TestRun(t *testing.T) {
	c := testcluster.Get(t)
	tests := []struct {
		name            string
		allNamespaces   bool // needed to watch nodes
		includeExisting bool
		before          func(t *testing.T, ns string) // state present before Run starts
		act             func(t *testing.T, ns string) // what happens while it watches
		want            []string                      // summaries of the faults in the test's scope
	}{
		{
			name: "pod starts crash-looping",
			act: func(t *testing.T, ns string) {
				p := crashLoopingPod(t, c, ns, "web")
				// More crashes: updates of a pod already known to crash-loop.
				p.Status = crashLoopStatus(4)
				p = c.SetStatus(t, p)
				p.Status = runningStatus()
				p = c.SetStatus(t, p)
				p.Status = crashLoopStatus(5)
				c.SetStatus(t, p)
			},
			want: []string{"Pod/web CrashLoop critical"},
		},
		{
			name:   "existing crash-looping pod is not reported",
			before: func(t *testing.T, ns string) { crashLoopingPod(t, c, ns, "web") },
			act: func(t *testing.T, ns string) {
				p, err := c.Client.CoreV1().Pods(ns).Get(context.Background(), "web", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				p.Status = crashLoopStatus(4)
				c.SetStatus(t, p)
			},
		},
		{
			name:            "existing crash-looping pod is reported once with IncludeExisting",
			includeExisting: true,
			before:          func(t *testing.T, ns string) { crashLoopingPod(t, c, ns, "web") },
			act: func(t *testing.T, ns string) {
				p, err := c.Client.CoreV1().Pods(ns).Get(context.Background(), "web", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				p.Status = crashLoopStatus(4)
				c.SetStatus(t, p)
			},
			want: []string{"Pod/web CrashLoop critical"},
		},
		{
			name: "pod that only starts not ready is not reported",
			act: func(t *testing.T, ns string) {
				p := newPod(ns, "web")
				p = c.CreatePod(t, p)
				p.Status = runningStatus()
				p.Status.Conditions[1].Status = corev1.ConditionFalse
				p = c.SetStatus(t, p)
				p.Status = runningStatus()
				c.SetStatus(t, p)
			},
		},
		{
			name:          "node goes NotReady",
			allNamespaces: true,
			act: func(t *testing.T, ns string) {
				node := &corev1.Node{
					ObjectMeta: metav1.ObjectMeta{Name: ns + "-node"},
					Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{
						Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
						LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
					}}},
				}
				c.Create(t, node)
				node.Status.Conditions[0] = corev1.NodeCondition{
					Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown",
					Message: "Kubelet stopped posting node status.", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
				}
				c.SetObjectStatus(t, node)
			},
			want: []string{"Node/{ns}-node NodeUnhealthy critical"},
		},
		{
			name: "deployment exceeds its progress deadline",
			act: func(t *testing.T, ns string) {
				d := newDeployment(ns, "web")
				c.Create(t, d)
				// A new deployment is below its availability at first:
				// not a fault.
				d.Status = appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
					{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability."},
					{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated", Message: `ReplicaSet "web-1" is progressing.`},
				}}
				c.SetObjectStatus(t, d)
				d.Status.Conditions[1] = appsv1.DeploymentCondition{
					Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "web-1" has timed out progressing.`,
				}
				c.SetObjectStatus(t, d)
			},
			want: []string{"Deployment/web DeploymentFailure critical"},
		},
		{
			name: "job fails",
			act: func(t *testing.T, ns string) {
				j := newJob(ns, "migrate")
				c.Create(t, j)
				now := metav1.Now()
				j.Status = batchv1.JobStatus{
					StartTime: &now,
					Failed:    1,
					Conditions: []batchv1.JobCondition{
						{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
						{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
					},
				}
				c.SetObjectStatus(t, j)
			},
			want: []string{"Job/migrate JobFailure critical"},
		},
		{
			name: "warning event FailedScheduling",
			act: func(t *testing.T, ns string) {
				p := newPod(ns, "web")
				p.Annotations = map[string]string{testcluster.AnnotationUnscheduled: "true"}
				p = c.CreatePod(t, p)
				c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedScheduling", Component: "default-scheduler",
					Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."})
			},
			want: []string{"Pod/web Unschedulable warning"},
		},
		{
			name: "warning event FailedMount",
			act: func(t *testing.T, ns string) {
				p := c.CreatePod(t, newPod(ns, "web"))
				c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedMount",
					Message: `MountVolume.SetUp failed for volume "config" : configmap "app-config" not found`})
			},
			want: []string{"Pod/web FailedMount warning"},
		},
		{
			name: "normal event is not a fault",
			act: func(t *testing.T, ns string) {
				p := c.CreatePod(t, newPod(ns, "web"))
				c.Event(t, testcluster.EventSpec{Object: p, Type: corev1.EventTypeNormal, Reason: "Pulled",
					Message: `Container image "busybox:1.36" already present on machine`})
			},
		},
		{
			name: "existing warning that recurs is reported",
			before: func(t *testing.T, ns string) {
				p := c.CreatePod(t, newPod(ns, "web"))
				c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedMount", Message: "timed out waiting for the condition"})
			},
			act: func(t *testing.T, ns string) {
				evs, err := c.Client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
				if err != nil || len(evs.Items) != 1 {
					t.Fatalf("list events: %v, %d events, want 1", err, len(evs.Items))
				}
				// A change of metadata is no new occurrence; a count bump is.
				e := &evs.Items[0]
				e.Labels = map[string]string{"seen": "yes"}
				if e, err = c.Client.CoreV1().Events(ns).Update(context.Background(), e, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				e.Count++
				e.LastTimestamp = metav1.NewTime(e.LastTimestamp.Add(time.Second))
				if _, err := c.Client.CoreV1().Events(ns).Update(context.Background(), e, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"Pod/web FailedMount warning"},
		},
		{
			name:            "existing warnings of the last hour with IncludeExisting",
			includeExisting: true,
			before: func(t *testing.T, ns string) {
				recent := c.CreatePod(t, newPod(ns, "recent"))
				c.Event(t, testcluster.EventSpec{Object: recent, Reason: "FailedMount", Message: "timed out waiting for the condition"})
				old := c.CreatePod(t, newPod(ns, "old"))
				c.Event(t, testcluster.EventSpec{Object: old, Reason: "FailedMount", Message: "timed out waiting for the condition",
					Last: time.Now().Add(-2 * time.Hour)})
			},
			want: []string{"Pod/recent FailedMount warning"},
		},
		{
			name: "existing warnings without IncludeExisting",
			before: func(t *testing.T, ns string) {
				c.Event(t, testcluster.EventSpec{Object: c.CreatePod(t, newPod(ns, "web")), Reason: "FailedMount"})
			},
		},
		{
			name: "another namespace is not watched",
			act: func(t *testing.T, ns string) {
				other := c.Namespace(t)
				p := crashLoopingPod(t, c, other, "web")
				c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedMount", Message: "timed out waiting for the condition"})
			},
		},
		{
			name: "apiserver noise is ignored",
			act: func(t *testing.T, ns string) {
				svc := &corev1.Service{
					ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns},
					Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443}}},
				}
				c.Create(t, svc)
				c.Event(t, testcluster.EventSpec{Object: svc, Reason: "ClusterIPNotAllocated", Component: "ipallocator-repair-controller",
					Message: "Cluster IP [IPv4]: " + svc.Spec.ClusterIP + " is not allocated; repairing"})
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := c.Namespace(t)
			if tt.before != nil {
				tt.before(t, ns)
			}
			opts := Options{Namespace: ns, IncludeExisting: tt.includeExisting}
			if tt.allNamespaces {
				opts.Namespace = ""
			}
			r := startWatch(t, c, opts)
			if tt.act != nil {
				tt.act(t, ns)
			}
			// Faults of this test: in its namespace, or about its nodes
			// (named after it); a namespaced watch must see nothing else.
			inScope := func(ev *fault.Event) bool {
				if strings.HasPrefix(ev.ResourceName(), "barrier-") {
					return false
				}
				return !tt.allNamespaces || ev.Namespace() == ns || strings.HasPrefix(ev.ResourceName(), ns)
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = strings.ReplaceAll(w, "{ns}", ns)
				r.waitFor(t, want[i], func(ev *fault.Event) bool { return inScope(ev) && summary(ev) == want[i] })
			}
			// Anything the watch would wrongly emit has been by now.
			podBarrier(t, c, ns, r)
			eventBarrier(t, c, ns, r)

			var got []string
			for _, ev := range r.all() {
				if !inScope(ev) {
					continue
				}
				got = append(got, summary(ev))
				checkEvent(t, c, ns, ev)
			}
			if emitted := r.stats.Emitted.Load(); emitted != uint64(len(r.all())) || r.stats.Observed.Load() < emitted {
				t.Errorf("stats: observed %d, emitted %d; %d events emitted", r.stats.Observed.Load(), emitted, len(r.all()))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("faults:\n%s\nwant:\n  %s", describe(r.all()), strings.Join(want, "\n  "))
			}
		})
	}
}

// checkEvent checks what every fault of the cluster source carries: the
// cluster, a complete resource (UID of the live object), a timestamp and
// raw bytes.
func checkEvent(t *testing.T, c *testcluster.Cluster, ns string, ev *fault.Event) {
	t.Helper()
	res := ev.Resource
	if ev.Cluster != clusterName || res.APIVersion == "" || ev.Timestamp.IsZero() || len(ev.Raw) == 0 || ev.EventID == "" || ev.Context == "" {
		t.Errorf("incomplete fault event: %s", ev.Raw)
	}
	if res.Kind != "Node" && res.Namespace != ns {
		t.Errorf("%s: namespace %q, want %q", summary(ev), res.Namespace, ns)
	}
	ctx := context.Background()
	var uid types.UID
	var err error
	switch res.Kind {
	case "Pod":
		var o *corev1.Pod
		if o, err = c.Client.CoreV1().Pods(ns).Get(ctx, res.Name, metav1.GetOptions{}); err == nil {
			uid = o.UID
		}
	case "Node":
		var o *corev1.Node
		if o, err = c.Client.CoreV1().Nodes().Get(ctx, res.Name, metav1.GetOptions{}); err == nil {
			uid = o.UID
		}
	case "Deployment":
		var o *appsv1.Deployment
		if o, err = c.Client.AppsV1().Deployments(ns).Get(ctx, res.Name, metav1.GetOptions{}); err == nil {
			uid = o.UID
		}
	case "Job":
		var o *batchv1.Job
		if o, err = c.Client.BatchV1().Jobs(ns).Get(ctx, res.Name, metav1.GetOptions{}); err == nil {
			uid = o.UID
		}
	default:
		t.Errorf("unexpected kind in %s", summary(ev))
		return
	}
	if err != nil {
		t.Errorf("get %s: %v", summary(ev), err)
	} else if string(uid) != res.UID {
		t.Errorf("%s: uid %q, want the object's %q", summary(ev), res.UID, uid)
	}
}

func newDeployment(ns, name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36"}}},
			},
		},
	}
}

func newJob(ns, name string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "app", Image: "busybox:1.36"}},
			}},
		},
	}
}
