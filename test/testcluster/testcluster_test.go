package testcluster_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

func TestMain(m *testing.M) { os.Exit(testcluster.Main(m)) }

var ctx = context.Background()

// crashLoopPod is a pod whose container "app" restarted and is backing off,
// with a previous terminated instance (so logs --previous is meaningful).
func crashLoopPod(ns, name string) *corev1.Pod {
	t0 := metav1.NewTime(time.Now().Add(-30 * time.Minute))
	t1 := metav1.NewTime(time.Now().Add(-2 * time.Minute))
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": "demo"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "app", Image: "busybox:1.36"},
			{Name: "sidecar", Image: "busybox:1.36"},
		}},
		Status: corev1.PodStatus{
			Phase:     corev1.PodRunning,
			HostIP:    "127.0.0.1",
			PodIP:     "10.244.0.11",
			StartTime: &t0,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: t0},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: t0},
			},
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: "app", Image: "busybox:1.36", ContainerID: "containerd://c1", RestartCount: 5,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 1, Reason: "Error", StartedAt: t1, FinishedAt: t1, ContainerID: "containerd://c1"}},
			}, {
				Name: "sidecar", Image: "busybox:1.36", ContainerID: "containerd://c2", Ready: true,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t0}},
			}},
		},
	}
}

func userClient(t *testing.T, c *testcluster.Cluster) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.UserKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestClusterIsUp(t *testing.T) {
	c := testcluster.Get(t)
	v, err := c.Client.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v.GitVersion, "v1.") {
		t.Errorf("server version %q: built without version ldflags?", v.GitVersion)
	}
	node, err := c.Client.CoreV1().Nodes().Get(ctx, c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(node.Status.Conditions) == 0 || node.Status.Conditions[0].Status != corev1.ConditionTrue {
		t.Errorf("node not Ready: %+v", node.Status.Conditions)
	}
	if got := node.Status.Allocatable.Cpu().String(); got != "4" {
		t.Errorf("allocatable cpu = %s, want 4", got)
	}
	if _, err := c.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Errorf("default service account: %v", err)
	}
}

func TestNamespaceName(t *testing.T) {
	c := testcluster.Get(t)
	t.Run("a Very/Long_subtest name that goes on and on and on and on and on and on and on", func(t *testing.T) {
		ns := c.Namespace(t)
		if len(ns) > 63 || !strings.HasPrefix(ns, "testnamespacename-a-very-long-subtest") {
			t.Errorf("namespace %q", ns)
		}
		if _, err := c.Client.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{}); err != nil {
			t.Errorf("kube-root-ca.crt: %v", err)
		}
		// The namespace is usable for pods right away (default SA exists).
		c.CreatePod(t, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}},
		})
	})
}

func TestPodLogsThroughAPIServer(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	pod := c.CreatePod(t, crashLoopPod(ns, "crashloop"))
	if pod.Spec.NodeName != c.NodeName {
		t.Fatalf("nodeName = %q", pod.Spec.NodeName)
	}
	if pod.Status.ContainerStatuses[0].RestartCount != 5 {
		t.Fatalf("status not written: %+v", pod.Status)
	}
	c.SetLogs(ns, "crashloop", "app", false, "starting\nready\n")
	c.SetLogs(ns, "crashloop", "app", true, "line1\nline2\nline3\npanic: boom\n")
	c.SetLogError(ns, "crashloop", "sidecar", false, "sidecar exploded")

	// Stream, as kubectl does: DoRaw would replace the server's message
	// with a generic "the server rejected our request for an unknown reason".
	logs := func(opts *corev1.PodLogOptions) (string, error) {
		rc, err := c.Client.CoreV1().Pods(ns).GetLogs("crashloop", opts).Stream(ctx)
		if err != nil {
			return "", err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		return string(b), err
	}
	tail := int64(2)
	limit := int64(5)
	for _, tc := range []struct {
		name string
		opts corev1.PodLogOptions
		want string
	}{
		{"current", corev1.PodLogOptions{Container: "app"}, "starting\nready\n"},
		{"previous", corev1.PodLogOptions{Container: "app", Previous: true}, "line1\nline2\nline3\npanic: boom\n"},
		{"previous tail", corev1.PodLogOptions{Container: "app", Previous: true, TailLines: &tail}, "line3\npanic: boom\n"},
		{"limitBytes", corev1.PodLogOptions{Container: "app", Previous: true, LimitBytes: &limit}, "line1"},
		{"follow", corev1.PodLogOptions{Container: "app", Follow: true}, "starting\nready\n"},
	} {
		got, err := logs(&tc.opts)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		} else if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}

	got, err := logs(&corev1.PodLogOptions{Container: "app", Timestamps: true})
	if err != nil || !strings.HasSuffix(got, "Z ready\n") || len(strings.Split(got, "\n")) != 3 {
		t.Errorf("timestamps: %q, %v", got, err)
	}

	_, err = logs(&corev1.PodLogOptions{Container: "sidecar", Previous: true})
	if want := `previous terminated container "sidecar" in pod "crashloop" not found`; err == nil || err.Error() != want {
		t.Errorf("missing previous logs: err = %v", err)
	}
	_, err = logs(&corev1.PodLogOptions{Container: "sidecar"})
	if err == nil || !strings.Contains(err.Error(), "sidecar exploded") || !apierrors.IsBadRequest(err) {
		t.Errorf("injected error: err = %v", err)
	}
}

func TestUnscheduledPod(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	pod := c.CreatePod(t, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "pending", Namespace: ns,
			Annotations: map[string]string{testcluster.AnnotationUnscheduled: "true"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "x"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
			Message: "0/1 nodes are available: 1 Insufficient cpu."}}},
	})
	if pod.Spec.NodeName != "" || pod.Status.Conditions[0].Reason != "Unschedulable" {
		t.Errorf("got nodeName %q, status %+v", pod.Spec.NodeName, pod.Status)
	}
}

func TestEvents(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	pod := c.CreatePod(t, crashLoopPod(ns, "crashloop"))
	first := time.Now().Add(-time.Hour).Truncate(time.Second)
	ev := c.Event(t, testcluster.EventSpec{Object: pod, Reason: "BackOff", Message: "Back-off restarting failed container app",
		Count: 42, First: first, FieldPath: "spec.containers{app}"})
	if ev.InvolvedObject.Kind != "Pod" || ev.InvolvedObject.APIVersion != "v1" || ev.Type != corev1.EventTypeWarning {
		t.Errorf("event defaults: %+v", ev)
	}

	list, err := c.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(pod.UID)).String(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("got %d events, want 1", len(list.Items))
	}
	got := list.Items[0]
	if got.Reason != "BackOff" || got.Count != 42 || !got.FirstTimestamp.Time.Equal(first) || got.Source.Component != "kubelet" {
		t.Errorf("stored event: %+v", got)
	}

	// Cluster-scoped objects get their events in "default".
	node, err := c.Client.CoreV1().Nodes().Get(ctx, c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nev := c.Event(t, testcluster.EventSpec{Object: node, Type: corev1.EventTypeNormal, Reason: "NodeReady", Component: "node-controller"})
	if nev.Namespace != "default" || nev.InvolvedObject.Kind != "Node" {
		t.Errorf("node event: %+v", nev)
	}
}

func TestAuditLogCountsUserRequests(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	c.CreatePod(t, crashLoopPod(ns, "audited"))
	user := userClient(t, c)

	mark := c.AuditMark()
	if _, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); err != nil { // admin: must not count
		t.Fatal(err)
	}
	if _, err := user.CoreV1().Pods(ns).Get(ctx, "audited", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := user.CoreV1().Pods(ns).Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get missing pod: %v", err)
	}

	events := c.AuditSince(t, mark, c.UserName)
	if len(events) != 2 {
		t.Fatalf("got %d events by %s, want 2: %+v", len(events), c.UserName, events)
	}
	e := events[0]
	if e.Verb != "get" || e.Resource != "pods" || e.Namespace != ns || e.Name != "audited" || e.Code != 200 ||
		e.User != c.UserName || e.Stage != "ResponseComplete" || e.Time.IsZero() || e.UserAgent == "" {
		t.Errorf("first event: %+v", e)
	}
	if events[1].Code != 404 || events[1].Name != "missing" {
		t.Errorf("second event: %+v", events[1])
	}
	admin := c.AuditSince(t, mark, testcluster.AdminName)
	if len(admin) != 1 || admin[0].Verb != "list" {
		t.Errorf("admin events: %+v", admin)
	}
	if got := c.AuditSince(t, c.AuditMark(), c.UserName); len(got) != 0 {
		t.Errorf("events after a fresh mark: %+v", got)
	}
}

func TestDeploymentChain(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	status := crashLoopPod(ns, "").Status
	dep, rs, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "web", Container: "app", Replicas: 3, PodStatus: status})

	if len(pods) != 3 {
		t.Fatalf("got %d pods", len(pods))
	}
	refOK := func(refs []metav1.OwnerReference, kind, name string, uid any) bool {
		return len(refs) == 1 && refs[0].Kind == kind && refs[0].Name == name && string(refs[0].UID) == uid &&
			refs[0].Controller != nil && *refs[0].Controller
	}
	if !refOK(rs.OwnerReferences, "Deployment", dep.Name, string(dep.UID)) {
		t.Errorf("rs owner: %+v", rs.OwnerReferences)
	}
	hash := rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	if hash == "" || rs.Name != "web-"+hash || rs.Annotations[testcluster.AnnotationRevision] != "1" {
		t.Errorf("rs meta: %+v", rs.ObjectMeta)
	}
	for _, p := range pods {
		stored, err := c.Client.CoreV1().Pods(ns).Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !refOK(stored.OwnerReferences, "ReplicaSet", rs.Name, string(rs.UID)) {
			t.Errorf("pod %s owner: %+v", p.Name, stored.OwnerReferences)
		}
		if stored.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != hash || stored.Spec.NodeName != c.NodeName ||
			stored.Status.ContainerStatuses[0].State.Waiting == nil {
			t.Errorf("pod %s: labels %v node %q status %+v", p.Name, stored.Labels, stored.Spec.NodeName, stored.Status)
		}
	}

	storedDep, err := c.Client.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := storedDep.Status
	if st.Replicas != 3 || st.UnavailableReplicas != 3 || st.ObservedGeneration != storedDep.Generation || len(st.Conditions) != 2 ||
		st.Conditions[1].Reason != "ProgressDeadlineExceeded" {
		t.Errorf("deployment status: %+v", st)
	}
	storedRS, err := c.Client.AppsV1().ReplicaSets(ns).Get(ctx, rs.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if storedRS.Status.Replicas != 3 || storedRS.Status.ReadyReplicas != 0 {
		t.Errorf("rs status: %+v", storedRS.Status)
	}
	// What `kubectl rollout status` / describe rely on: same template modulo the hash label.
	if storedRS.Spec.Template.Spec.Containers[0].Image != storedDep.Spec.Template.Spec.Containers[0].Image {
		t.Errorf("templates differ")
	}
}

func TestCreateAndSetObjectStatus(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: ns}, Data: map[string]string{"k": "v"}}
	c.Create(t, cm)
	if cm.UID == "" || cm.Data["k"] != "v" {
		t.Errorf("configmap not filled in: %+v", cm)
	}

	// Status given on Create is written through the status subresource.
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: ns},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "x"}},
		}}},
		Status: batchv1.JobStatus{Failed: 1, Active: 1, StartTime: &metav1.Time{Time: time.Now().Add(-time.Minute)}},
	}
	c.Create(t, job)
	if job.Status.Failed != 1 || job.UID == "" {
		t.Errorf("job status: %+v", job.Status)
	}
	job.Status.Failed = 2
	c.SetObjectStatus(t, job)
	stored, err := c.Client.BatchV1().Jobs(ns).Get(ctx, "job", metav1.GetOptions{})
	if err != nil || stored.Status.Failed != 2 {
		t.Errorf("job status after SetObjectStatus: %+v, %v", stored.Status, err)
	}

	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "s", "namespace": ns},
		"stringData": map[string]any{"password": "x"},
	}}
	c.Create(t, u)
	if u.GetUID() == "" {
		t.Errorf("unstructured not filled in: %v", u.Object)
	}
}

func TestViewRoleIsAggregated(t *testing.T) {
	c := testcluster.Get(t)
	view, err := c.Client.RbacV1().ClusterRoles().Get(ctx, "view", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Rules) == 0 {
		t.Fatal("view clusterrole has no rules")
	}

	// A subject bound to view can read pods but not nodes, as in a real cluster.
	ns := c.Namespace(t)
	c.Create(t, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "reader-view", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "reader"}},
	})
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "reader"}
	reader := kubernetes.NewForConfigOrDie(cfg)
	// The RBAC authorizer learns of new bindings through a watch: wait for it.
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := reader.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Errorf("reader list pods: never allowed: %v", err)
	}
	if _, err := reader.CoreV1().Events(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("reader list events: %v", err)
	}
	if _, err := reader.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("reader list nodes: want forbidden, got %v", err)
	}
}

func TestKubectlBinary(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	c.CreatePod(t, crashLoopPod(ns, "crashloop"))
	c.SetLogs(ns, "crashloop", "app", true, "panic: boom\n")

	mark := c.AuditMark()
	out := c.Kubectl(t, "get", "pods", "-n", ns)
	if !strings.Contains(out, "crashloop") || !strings.Contains(out, "CrashLoopBackOff") {
		t.Errorf("kubectl get pods:\n%s", out)
	}
	if out := c.Kubectl(t, "logs", "-n", ns, "crashloop", "-c", "app", "--previous"); out != "panic: boom\n" {
		t.Errorf("kubectl logs --previous: %q", out)
	}
	// Explicit --kubeconfig, as a test of the plugin binary would pass it.
	cmd := exec.Command(c.KubectlPath, "--kubeconfig", c.UserKubeconfig, "get", "pod", "crashloop", "-n", ns, "-o", "name")
	cmd.Env = c.Env() // for KUBECACHEDIR
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "pod/crashloop\n" {
		t.Errorf("kubectl --kubeconfig: %q, %v", out, err)
	}
	var gotList bool
	for _, e := range c.AuditSince(t, mark, c.UserName) {
		if e.Verb == "list" && e.Resource == "pods" && e.Namespace == ns && strings.HasPrefix(e.UserAgent, "kubectl") {
			gotList = true
		}
	}
	if !gotList {
		t.Errorf("kubectl's list pods is not in the audit log as %s", c.UserName)
	}
}

// The fake node is Ready, so nothing should keep pods off it: admission's
// not-ready:NoSchedule taint is removed as the node-lifecycle controller
// would.
func TestFakeNodeIsNotTaintedNotReady(t *testing.T) {
	c := testcluster.Get(t)
	node, err := c.Client.CoreV1().Nodes().Get(ctx, c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, taint := range node.Spec.Taints {
		if taint.Key == corev1.TaintNodeNotReady {
			t.Errorf("fake node carries %s:%s", taint.Key, taint.Effect)
		}
	}
}
