package e2e

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// Workload scenarios: what the deployment, replicaset, statefulset,
// daemonset, job and cronjob controllers would have left behind when they
// fail. No controller runs on the test control plane, so each setup writes
// the objects, their statuses and the controllers' events by hand, with the
// controllers' own wording (kubernetes v1.37).

func init() { register(workloadScenarios...) }

// wlController is a controller ownerReference, as the controllers set it.
func wlController(kind string, obj metav1.Object) metav1.OwnerReference {
	api := "apps/v1"
	if kind == "Job" || kind == "CronJob" {
		api = "batch/v1"
	}
	yes := true
	return metav1.OwnerReference{APIVersion: api, Kind: kind, Name: obj.GetName(), UID: obj.GetUID(), Controller: &yes, BlockOwnerDeletion: &yes}
}

func wlAgo(d time.Duration) metav1.Time {
	return metav1.NewTime(time.Now().Add(-d).Truncate(time.Second))
}

func wlReadyStatus(container, image string, started time.Duration) corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.0.21", StartTime: ptr(wlAgo(started)),
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: wlAgo(started)},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: wlAgo(started)},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: wlAgo(started)},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: wlAgo(started)},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Image: image, ImageID: image + "@sha256:01", ContainerID: "containerd://r1",
			Ready: true, Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: wlAgo(started)}}}},
	}
}

func wlNotReadyStatus(container, image string, started time.Duration) corev1.PodStatus {
	s := wlReadyStatus(container, image, started)
	s.Conditions = notReadyConditions()
	s.ContainerStatuses[0].Ready = false
	return s
}

// wlRevision creates a ReplicaSet of a Deployment at a revision, with n pods
// in the given status (the replicaset controller's and kubelet's parts).
func wlRevision(t *testing.T, c *testcluster.Cluster, dep *appsv1.Deployment, hash string, rev int64, tmpl corev1.PodTemplateSpec, replicas, pods int32, podStatus corev1.PodStatus, rsStatus appsv1.ReplicaSetStatus) (*appsv1.ReplicaSet, []*corev1.Pod) {
	t.Helper()
	tmpl = *tmpl.DeepCopy()
	tmpl.Labels = maps.Clone(tmpl.Labels)
	tmpl.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: dep.Name + "-" + hash, Namespace: dep.Namespace, Labels: maps.Clone(tmpl.Labels),
			Annotations: map[string]string{testcluster.AnnotationRevision: strconv.FormatInt(rev, 10),
				testcluster.AnnotationDesiredReplicas: fmt.Sprint(*dep.Spec.Replicas), testcluster.AnnotationMaxReplicas: fmt.Sprint(*dep.Spec.Replicas + 1)},
			OwnerReferences: []metav1.OwnerReference{wlController("Deployment", dep)}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(tmpl.Labels)}, Template: tmpl},
		Status: rsStatus,
	}
	rs.Status.ObservedGeneration = 1
	c.Create(t, rs)
	var out []*corev1.Pod
	for i := range pods {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%c%c%c%c%c", rs.Name, 'a'+i, 'k', 'q', 'z', 'x'), Namespace: dep.Namespace, Labels: maps.Clone(tmpl.Labels),
				OwnerReferences: []metav1.OwnerReference{wlController("ReplicaSet", rs)}},
			Spec:   *tmpl.Spec.DeepCopy(),
			Status: podStatus,
		}
		out = append(out, c.CreatePod(t, p))
	}
	return rs, out
}

// wlDeployment creates a Deployment at a revision with its status.
func wlDeployment(t *testing.T, c *testcluster.Cluster, ns, name string, replicas int32, rev int64, tmpl corev1.PodTemplateSpec, status appsv1.DeploymentStatus) *appsv1.Deployment {
	t.Helper()
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{testcluster.AnnotationRevision: strconv.FormatInt(rev, 10)}},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: tmpl},
		Status: status,
	}
	d.Status.ObservedGeneration = 1
	c.Create(t, d)
	return d
}

func wlTemplate(app, container, image string, mutate ...func(*corev1.PodSpec)) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: container, Image: image,
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}},
	}
	for _, m := range mutate {
		m(&t.Spec)
	}
	return t
}

func wlCondition(typ appsv1.DeploymentConditionType, ok bool, reason, msg string, since time.Duration) appsv1.DeploymentCondition {
	st := corev1.ConditionFalse
	if ok {
		st = corev1.ConditionTrue
	}
	return appsv1.DeploymentCondition{Type: typ, Status: st, Reason: reason, Message: msg, LastUpdateTime: wlAgo(since), LastTransitionTime: wlAgo(since)}
}

// wlFailedJobStatus is what the job controller writes when a Job fails: the
// FailureTarget condition first, then Failed with the same reason.
func wlFailedJobStatus(reason, msg string, failed int32, started, finished time.Duration) batchv1.JobStatus {
	return batchv1.JobStatus{
		Failed: failed, StartTime: ptr(wlAgo(started)),
		Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastProbeTime: wlAgo(finished), LastTransitionTime: wlAgo(finished)},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastProbeTime: wlAgo(finished), LastTransitionTime: wlAgo(finished)},
		},
	}
}

func wlJobTemplate(container, image string, command ...string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: container, Image: image, Command: command}}}}
}

// wlJob creates a Job (the API server generates its selector and labels)
// and writes its status.
func wlJob(t *testing.T, c *testcluster.Cluster, ns, name string, spec batchv1.JobSpec, status batchv1.JobStatus, owner ...metav1.OwnerReference) *batchv1.Job {
	t.Helper()
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: owner}, Spec: spec}
	if len(owner) > 0 && owner[0].Kind == "CronJob" && status.StartTime != nil {
		// The cronjob controller stamps the time the run was due.
		j.Annotations = map[string]string{batchv1.CronJobScheduledTimestampAnnotation: status.StartTime.UTC().Format(time.RFC3339)}
	}
	c.Create(t, j)
	j.Status = status
	c.SetObjectStatus(t, j)
	return j
}

// wlJobPod creates a pod of a Job, labelled with the selector the API
// server generated for it.
func wlJobPod(t *testing.T, c *testcluster.Cluster, j *batchv1.Job, name string, status corev1.PodStatus) *corev1.Pod {
	t.Helper()
	labels := maps.Clone(j.Spec.Template.Labels)
	return c.CreatePod(t, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: j.Namespace, Labels: labels, OwnerReferences: []metav1.OwnerReference{wlController("Job", j)}},
		Spec:       *j.Spec.Template.Spec.DeepCopy(),
		Status:     status,
	})
}

func wlFailedPodStatus(container, image string, code int32, finished time.Duration) corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodFailed, HostIP: "127.0.0.1", PodIP: "10.244.0.31", StartTime: ptr(wlAgo(finished + time.Minute)),
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: wlAgo(finished + time.Minute)},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "PodFailed", LastTransitionTime: wlAgo(finished)},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Image: image, ImageID: image + "@sha256:02", ContainerID: "containerd://f1",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Error",
				StartedAt: wlAgo(finished + 30*time.Second), FinishedAt: wlAgo(finished), ContainerID: "containerd://f1"}}}},
	}
}

// wlCronJob creates a CronJob and writes its status.
func wlCronJob(t *testing.T, c *testcluster.Cluster, ns, name, schedule string, mutate func(*batchv1.CronJobSpec), status batchv1.CronJobStatus) *batchv1.CronJob {
	t.Helper()
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.CronJobSpec{Schedule: schedule, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			BackoffLimit: ptr(int32(2)), Template: wlJobTemplate("task", "registry.example.com/ops/"+name+":1.0")}}}}
	if mutate != nil {
		mutate(&cj.Spec)
	}
	c.Create(t, cj)
	if status.LastScheduleTime != nil || len(status.Active) > 0 {
		cj.Status = status
		c.SetObjectStatus(t, cj)
	}
	return cj
}

// wlNode registers an extra Ready node sharing the fake node's kubelet (so
// its pods' logs can be read), labelled and tainted for one scenario.
func wlNode(t *testing.T, c *testcluster.Cluster, name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fake, err := c.Client.CoreV1().Nodes().Get(ctx, c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("110")}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{Capacity: res, Allocatable: res, Addresses: fake.Status.Addresses, DaemonEndpoints: fake.Status.DaemonEndpoints,
			NodeInfo: fake.Status.NodeInfo, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "kubelet is posting ready status", LastHeartbeatTime: metav1.Now(), LastTransitionTime: wlAgo(24 * time.Hour)}}},
	}
	c.Create(t, n)
	// Admission (TaintNodesByCondition) taints every new node
	// not-ready:NoSchedule; the node lifecycle controller would remove it
	// once the node reports Ready.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := c.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Taints = taints
		n, err = c.Client.CoreV1().Nodes().Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("untaint node %s: %v", name, err)
	}
	return n
}

// wlLabelNamespace sets labels on the scenario's namespace once everything
// else exists (a PodSecurity label would refuse the scenario's own pods).
func wlLabelNamespace(t *testing.T, c *testcluster.Cluster, ns string, labels map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := c.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		maps.Copy(n.Labels, labels)
		_, err = c.Client.CoreV1().Namespaces().Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("label namespace %s: %v", ns, err)
	}
}

var workloadScenarios = []scenario{
	{
		// Revision 2 moved the readiness probe to /ready, which the new
		// version does not serve: its pod runs but never becomes Ready and
		// the rollout hit its deadline over an hour ago (the kubelet's
		// Unhealthy events have expired). The diff of the revisions is what
		// explains it.
		name: "workload-rollout-readiness-probe-changed",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			probe := func(path string) func(*corev1.PodSpec) {
				return func(s *corev1.PodSpec) {
					s.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(8080)}},
						PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
				}
			}
			oldT := wlTemplate("storefront", "web", "registry.example.com/shop/storefront:2.3.1", probe("/healthz"))
			newT := wlTemplate("storefront", "web", "registry.example.com/shop/storefront:2.4.0", probe("/ready"))
			d := wlDeployment(t, c, ns, "storefront", 3, 2, newT, appsv1.DeploymentStatus{
				Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 3, UnavailableReplicas: 1,
				Conditions: []appsv1.DeploymentCondition{
					wlCondition(appsv1.DeploymentAvailable, true, "MinimumReplicasAvailable", "Deployment has minimum availability.", 48*time.Hour),
					wlCondition(appsv1.DeploymentProgressing, false, "ProgressDeadlineExceeded", `ReplicaSet "storefront-7c9d5f8b6" has timed out progressing.`, 85*time.Minute),
				}})
			wlRevision(t, c, d, "5b6c7d8f9", 1, oldT, 3, 3, wlReadyStatus("web", "registry.example.com/shop/storefront:2.3.1", 48*time.Hour),
				appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3})
			wlRevision(t, c, d, "7c9d5f8b6", 2, newT, 1, 1, wlNotReadyStatus("web", "registry.example.com/shop/storefront:2.4.0", 95*time.Minute),
				appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1})
			return []string{"deployment/storefront"}
		},
		category: "Rollout/Stuck/NotReady",
		culprit:  []string{"storefront-7c9d5f8b6", "revision 2", "readinessProbe", "/ready"},
	},
	{
		// Revision 3 dropped DATABASE_URL; its pod crashes saying so. The
		// pod's own finding is the root cause; the rollout finding (revision
		// 3 removed env DATABASE_URL) ranks below it as context.
		name: "workload-rollout-crash-introduced",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			dbURL := corev1.EnvVar{Name: "DATABASE_URL", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "billing-db"}, Key: "url"}}}
			v1 := wlTemplate("billing", "api", "registry.example.com/shop/billing:3.0.4", func(s *corev1.PodSpec) { s.Containers[0].Env = []corev1.EnvVar{dbURL} })
			v2 := wlTemplate("billing", "api", "registry.example.com/shop/billing:3.1.0", func(s *corev1.PodSpec) { s.Containers[0].Env = []corev1.EnvVar{dbURL} })
			v3 := wlTemplate("billing", "api", "registry.example.com/shop/billing:3.2.0", func(s *corev1.PodSpec) {
				s.Containers[0].Env = []corev1.EnvVar{{Name: "DB_HOST", Value: "billing-db.shop.svc"}}
			})
			d := wlDeployment(t, c, ns, "billing", 2, 3, v3, appsv1.DeploymentStatus{
				Replicas: 3, UpdatedReplicas: 1, ReadyReplicas: 2, AvailableReplicas: 2, UnavailableReplicas: 1,
				Conditions: []appsv1.DeploymentCondition{
					wlCondition(appsv1.DeploymentAvailable, true, "MinimumReplicasAvailable", "Deployment has minimum availability.", 72*time.Hour),
					wlCondition(appsv1.DeploymentProgressing, false, "ProgressDeadlineExceeded", `ReplicaSet "billing-6f7d8c9b5" has timed out progressing.`, 12*time.Minute),
				}})
			wlRevision(t, c, d, "58c6d7f9b", 1, v1, 0, 0, corev1.PodStatus{}, appsv1.ReplicaSetStatus{})
			wlRevision(t, c, d, "7d9f8b6c4", 2, v2, 2, 2, wlReadyStatus("api", "registry.example.com/shop/billing:3.1.0", 72*time.Hour),
				appsv1.ReplicaSetStatus{Replicas: 2, FullyLabeledReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2})
			_, pods := wlRevision(t, c, d, "6f7d8c9b5", 3, v3, 1, 1, crashStatus("api", 1, "Error", 6),
				appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1})
			c.SetLogs(ns, pods[0].Name, "api", true, "billing 3.2.0 starting\nFATAL config: required env DATABASE_URL is empty\n")
			c.SetLogs(ns, pods[0].Name, "api", false, "")
			return []string{"deploy/billing"}
		},
		category: "CrashLoop/Exit1/MissingEnv",
		// The rollout's context reaches the Root cause: which revision
		// introduced the crash and what it changed.
		culprit: []string{"DATABASE_URL", "Rollout context:", "change of revision 3 (container api env DATABASE_URL removed)", "rolling back to revision 2"},
	},
	{
		// Revision 2 doubled the memory limit; the namespace's quota cannot
		// hold the surge pod next to the old ones, so the new ReplicaSet
		// creates nothing.
		name: "workload-rollout-quota-surge",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			limits := func(mem string) func(*corev1.PodSpec) {
				return func(s *corev1.PodSpec) {
					s.Containers[0].Resources = corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse(mem)},
						Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(mem)}}
				}
			}
			oldT := wlTemplate("checkout", "app", "registry.example.com/shop/checkout:5.1.0", limits("1Gi"))
			newT := wlTemplate("checkout", "app", "registry.example.com/shop/checkout:5.2.0", limits("2Gi"))
			msg := `pods "checkout-6d8f9b7c4-" is forbidden: exceeded quota: compute-resources, requested: limits.memory=2Gi, used: limits.memory=7Gi, limited: limits.memory=8Gi`
			d := wlDeployment(t, c, ns, "checkout", 3, 2, newT, appsv1.DeploymentStatus{
				Replicas: 3, UpdatedReplicas: 0, ReadyReplicas: 3, AvailableReplicas: 3,
				Conditions: []appsv1.DeploymentCondition{
					wlCondition(appsv1.DeploymentAvailable, true, "MinimumReplicasAvailable", "Deployment has minimum availability.", 30*24*time.Hour),
					wlCondition(appsv1.DeploymentProgressing, true, "ReplicaSetUpdated", `ReplicaSet "checkout-6d8f9b7c4" is progressing.`, 6*time.Minute),
					wlCondition(appsv1.DeploymentReplicaFailure, true, "FailedCreate", msg, 6*time.Minute),
				}})
			wlRevision(t, c, d, "5c7b9d6f8", 1, oldT, 3, 3, wlReadyStatus("app", "registry.example.com/shop/checkout:5.1.0", 30*24*time.Hour),
				appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3})
			rs, _ := wlRevision(t, c, d, "6d8f9b7c4", 2, newT, 1, 0, corev1.PodStatus{}, appsv1.ReplicaSetStatus{
				Conditions: []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: msg, LastTransitionTime: wlAgo(6 * time.Minute)}}})
			c.Event(t, testcluster.EventSpec{Object: rs, Reason: "FailedCreate", Component: "replicaset-controller", Count: 17,
				First: time.Now().Add(-6 * time.Minute), Message: "Error creating: " + msg})
			// Last: admission would check the scenario's own pods against it.
			q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "compute-resources", Namespace: ns},
				Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"limits.memory": resource.MustParse("8Gi"), "requests.cpu": resource.MustParse("4")}},
				Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{"limits.memory": resource.MustParse("8Gi"), "requests.cpu": resource.MustParse("4")},
					Used: corev1.ResourceList{"limits.memory": resource.MustParse("7Gi"), "requests.cpu": resource.MustParse("1750m")}}}
			c.Create(t, q)
			return []string{"deployment/checkout"}
		},
		category: "FailedCreate/Quota",
		culprit:  []string{"compute-resources", "limits.memory", "requested 2Gi", "used 7Gi", "limited 8Gi"},
	},
	{
		name: "workload-replicaset-missing-serviceaccount",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			tmpl := wlTemplate("queue-worker", "worker", "registry.example.com/shop/queue-worker:1.8.2", func(s *corev1.PodSpec) { s.ServiceAccountName = "queue-consumer" })
			tmpl.Labels["pod-template-hash"] = "7f9c6b8d5"
			msg := fmt.Sprintf(`pods "queue-worker-7f9c6b8d5-" is forbidden: error looking up service account %s/queue-consumer: serviceaccount "queue-consumer" not found`, ns)
			rs := &appsv1.ReplicaSet{
				ObjectMeta: metav1.ObjectMeta{Name: "queue-worker-7f9c6b8d5", Namespace: ns, Labels: maps.Clone(tmpl.Labels)},
				Spec:       appsv1.ReplicaSetSpec{Replicas: ptr(int32(2)), Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(tmpl.Labels)}, Template: tmpl},
				Status: appsv1.ReplicaSetStatus{ObservedGeneration: 1, Conditions: []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure,
					Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: msg, LastTransitionTime: wlAgo(20 * time.Minute)}}},
			}
			c.Create(t, rs)
			c.Event(t, testcluster.EventSpec{Object: rs, Reason: "FailedCreate", Component: "replicaset-controller", Count: 21,
				First: time.Now().Add(-20 * time.Minute), Message: "Error creating: " + msg})
			return []string{"rs/queue-worker-7f9c6b8d5"}
		},
		category: "FailedCreate/ServiceAccount",
		culprit:  []string{"queue-consumer", "serviceAccountName"},
	},
	{
		name: "workload-deployment-webhook-denied",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			tmpl := wlTemplate("ledger-api", "api", "registry.example.com/fin/ledger-api:0.9.0")
			msg := `admission webhook "validation.gatekeeper.sh" denied the request: [require-cost-center] you must provide labels: {"cost-center"}`
			d := wlDeployment(t, c, ns, "ledger-api", 2, 1, tmpl, appsv1.DeploymentStatus{
				Conditions: []appsv1.DeploymentCondition{
					wlCondition(appsv1.DeploymentAvailable, false, "MinimumReplicasUnavailable", "Deployment does not have minimum availability.", 40*time.Minute),
					wlCondition(appsv1.DeploymentProgressing, true, "ReplicaSetUpdated", `ReplicaSet "ledger-api-5d7b8c9f6" is progressing.`, 40*time.Minute),
					wlCondition(appsv1.DeploymentReplicaFailure, true, "FailedCreate", msg, 40*time.Minute),
				}})
			rs, _ := wlRevision(t, c, d, "5d7b8c9f6", 1, tmpl, 2, 0, corev1.PodStatus{}, appsv1.ReplicaSetStatus{
				Conditions: []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: msg, LastTransitionTime: wlAgo(40 * time.Minute)}}})
			c.Event(t, testcluster.EventSpec{Object: rs, Reason: "FailedCreate", Component: "replicaset-controller", Count: 31,
				First: time.Now().Add(-40 * time.Minute), Message: "Error creating: " + msg})
			return []string{"deployment/ledger-api"}
		},
		category: "FailedCreate/Webhook",
		culprit:  []string{"validation.gatekeeper.sh", "require-cost-center"},
	},
	{
		name: "workload-daemonset-podsecurity",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			tmpl := wlTemplate("node-exporter", "exporter", "quay.io/prometheus/node-exporter:v1.8.2")
			ds := &appsv1.DaemonSet{
				ObjectMeta: metav1.ObjectMeta{Name: "node-exporter", Namespace: ns},
				Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "node-exporter"}}, Template: tmpl},
				Status:     appsv1.DaemonSetStatus{DesiredNumberScheduled: 1, NumberUnavailable: 1, ObservedGeneration: 1},
			}
			c.Create(t, ds)
			c.Event(t, testcluster.EventSpec{Object: ds, Reason: "FailedCreate", Component: "daemonset-controller", Count: 9, First: time.Now().Add(-15 * time.Minute),
				Message: `Error creating: pods "node-exporter-" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "exporter" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "exporter" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "exporter" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "exporter" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`})
			wlLabelNamespace(t, c, ns, map[string]string{"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "latest"})
			return []string{"daemonset/node-exporter"}
		},
		category: "FailedCreate/PodSecurity",
		culprit:  []string{`"restricted:latest"`, "container exporter", "allowPrivilegeEscalation"},
	},
	{
		// ledger-0's init container waits for a database that never
		// answers; with OrderedReady, ledger-1 and ledger-2 are never
		// created.
		name: "workload-statefulset-ordinal-blocked",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			tmpl := wlTemplate("ledger", "app", "registry.example.com/fin/ledger:4.2.0", func(s *corev1.PodSpec) {
				s.InitContainers = []corev1.Container{{Name: "wait-for-db", Image: "busybox:1.36",
					Command: []string{"sh", "-c", "until nc -z ledger-db 5432; do echo waiting for ledger-db:5432; sleep 2; done"}}}
			})
			sts := &appsv1.StatefulSet{
				ObjectMeta: metav1.ObjectMeta{Name: "ledger", Namespace: ns},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(3)), ServiceName: "ledger", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ledger"}},
					Template: tmpl},
				Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 1, CurrentReplicas: 1, UpdatedReplicas: 1,
					CurrentRevision: "ledger-6b8d9c7f5d", UpdateRevision: "ledger-6b8d9c7f5d", CollisionCount: ptr(int32(0))},
			}
			c.Create(t, sts)
			labels := maps.Clone(tmpl.Labels)
			labels["apps.kubernetes.io/pod-index"] = "0"
			labels["statefulset.kubernetes.io/pod-name"] = "ledger-0"
			labels["controller-revision-hash"] = "ledger-6b8d9c7f5d"
			started := wlAgo(40 * time.Minute)
			c.CreatePod(t, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "ledger-0", Namespace: ns, Labels: labels, OwnerReferences: []metav1.OwnerReference{wlController("StatefulSet", sts)}},
				Spec:       *tmpl.Spec.DeepCopy(),
				Status: corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "10.244.0.41", StartTime: &started,
					Conditions: []corev1.PodCondition{
						{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: started},
						{Type: corev1.PodInitialized, Status: corev1.ConditionFalse, Reason: "ContainersNotInitialized", Message: "containers with incomplete status: [wait-for-db]", LastTransitionTime: started},
						{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [app]", LastTransitionTime: started},
						{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [app]", LastTransitionTime: started},
					},
					InitContainerStatuses: []corev1.ContainerStatus{{Name: "wait-for-db", Image: "busybox:1.36", ImageID: "docker.io/library/busybox@sha256:01", ContainerID: "containerd://i1",
						Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}},
					ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "registry.example.com/fin/ledger:4.2.0",
						State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}},
			})
			c.SetLogs(ns, "ledger-0", "wait-for-db", false, "waiting for ledger-db:5432\nwaiting for ledger-db:5432\nwaiting for ledger-db:5432\n")
			return []string{"statefulset/ledger"}
		},
		category: "StatefulSet/OrdinalBlocked",
		culprit:  []string{"ledger-0", "wait-for-db", "ledger-1, ledger-2"},
	},
	{
		name: "workload-statefulset-limitrange",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			tmpl := wlTemplate("search", "opensearch", "opensearchproject/opensearch:2.15.0", func(s *corev1.PodSpec) {
				s.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")}
			})
			sts := &appsv1.StatefulSet{
				ObjectMeta: metav1.ObjectMeta{Name: "search", Namespace: ns},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(2)), ServiceName: "search", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "search"}},
					Template: tmpl},
				Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, CurrentRevision: "search-85c6f9d7b4", UpdateRevision: "search-85c6f9d7b4", CollisionCount: ptr(int32(0))},
			}
			c.Create(t, sts)
			c.Event(t, testcluster.EventSpec{Object: sts, Reason: "FailedCreate", Component: "statefulset-controller", Count: 14, First: time.Now().Add(-25 * time.Minute),
				Message: `create Pod search-0 in StatefulSet search failed error: pods "search-0" is forbidden: maximum memory usage per Container is 4Gi, but limit is 8Gi`})
			c.Create(t, &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "container-limits", Namespace: ns},
				Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}}}}})
			return []string{"sts/search"}
		},
		category: "FailedCreate/LimitRange",
		culprit:  []string{"limits.memory (8Gi)", "maximum 4Gi"},
	},
	{
		name: "workload-daemonset-selector-matches-no-node",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			tmpl := wlTemplate("gpu-device-plugin", "plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.16.2", func(s *corev1.PodSpec) {
				s.NodeSelector = map[string]string{"nvidia.com/gpu.present": "true"}
			})
			c.Create(t, &appsv1.DaemonSet{
				ObjectMeta: metav1.ObjectMeta{Name: "gpu-device-plugin", Namespace: ns},
				Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "gpu-device-plugin"}}, Template: tmpl},
				Status:     appsv1.DaemonSetStatus{ObservedGeneration: 1},
			})
			return []string{"ds/gpu-device-plugin"}
		},
		category: "DaemonSet/NoEligibleNodes",
		culprit:  []string{"nodeSelector", "nvidia.com/gpu.present=true"},
	},
	{
		// The template lost its toleration for the GPU pool's taint: the
		// pod already there keeps running but is misscheduled, and will not
		// come back once it is replaced.
		name: "workload-daemonset-misscheduled-taint",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			pool := map[string]string{"e2e.kubectl-triage.io/pool": ns}
			// Every node of the pool carries the pool taint, so other
			// scenarios' DaemonSets never count these nodes.
			poolTaint := corev1.Taint{Key: "e2e.kubectl-triage.io/pool", Value: ns, Effect: corev1.TaintEffectNoSchedule}
			a := wlNode(t, c, ns+"-a", pool, poolTaint)
			gpu := wlNode(t, c, ns+"-gpu", pool, poolTaint, corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule})
			tmpl := wlTemplate("log-shipper", "shipper", "fluent/fluent-bit:3.1.4", func(s *corev1.PodSpec) {
				s.NodeSelector = pool
				s.Tolerations = []corev1.Toleration{{Key: "e2e.kubectl-triage.io/pool", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
			})
			ds := &appsv1.DaemonSet{
				ObjectMeta: metav1.ObjectMeta{Name: "log-shipper", Namespace: ns},
				Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "log-shipper"}}, Template: tmpl},
				Status: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, NumberReady: 1,
					NumberAvailable: 1, UpdatedNumberScheduled: 1, NumberMisscheduled: 1},
			}
			c.Create(t, ds)
			for _, n := range []*corev1.Node{a, gpu} {
				name := "log-shipper-" + map[bool]string{true: "x7k2p", false: "m4q9z"}[n == a]
				spec := *tmpl.Spec.DeepCopy()
				spec.NodeName = n.Name
				c.CreatePod(t, &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: maps.Clone(tmpl.Labels), OwnerReferences: []metav1.OwnerReference{wlController("DaemonSet", ds)}},
					Spec:       spec,
					Status:     wlReadyStatus("shipper", "fluent/fluent-bit:3.1.4", 72*time.Hour),
				})
				c.SetLogs(ns, name, "shipper", false, "[info] [output:forward] connected\n")
			}
			return []string{"daemonset/log-shipper"}
		},
		category: "DaemonSet/Misscheduled/Taint",
		culprit:  []string{"dedicated=gpu:NoSchedule", "-gpu"},
	},
	{
		// The pods of a failed Job were cleaned up: the Job's status is all
		// that is left to say why.
		name: "workload-job-backoff-pods-gone",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			j := wlJob(t, c, ns, "reindex", batchv1.JobSpec{BackoffLimit: ptr(int32(6)), Template: wlJobTemplate("reindex", "registry.example.com/search/reindex:2.0.1")},
				wlFailedJobStatus("BackoffLimitExceeded", "Job has reached the specified backoff limit", 7, 50*time.Minute, 8*time.Minute))
			c.Event(t, testcluster.EventSpec{Object: j, Reason: "BackoffLimitExceeded", Component: "job-controller", First: time.Now().Add(-8 * time.Minute),
				Message: "Job has reached the specified backoff limit"})
			return []string{"job/reindex"}
		},
		category: "Job/BackoffLimitExceeded",
		culprit:  []string{"job/reindex", "spec.backoffLimit"},
	},
	{
		name: "workload-job-deadline-exceeded",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			j := wlJob(t, c, ns, "nightly-export", batchv1.JobSpec{BackoffLimit: ptr(int32(3)), ActiveDeadlineSeconds: ptr(int64(1800)),
				Template: wlJobTemplate("export", "registry.example.com/data/export:1.12.0")},
				wlFailedJobStatus("DeadlineExceeded", "Job was active longer than specified deadline", 1, 35*time.Minute, 5*time.Minute))
			c.Event(t, testcluster.EventSpec{Object: j, Type: "Normal", Reason: "SuccessfulCreate", Component: "job-controller", First: time.Now().Add(-35 * time.Minute),
				Message: "Created pod: nightly-export-q8w2n"})
			c.Event(t, testcluster.EventSpec{Object: j, Type: "Normal", Reason: "SuccessfulDelete", Component: "job-controller", First: time.Now().Add(-5 * time.Minute),
				Message: "Deleted pod: nightly-export-q8w2n"})
			c.Event(t, testcluster.EventSpec{Object: j, Reason: "DeadlineExceeded", Component: "job-controller", First: time.Now().Add(-5 * time.Minute),
				Message: "Job was active longer than specified deadline"})
			return []string{"job/nightly-export"}
		},
		category: "Job/DeadlineExceeded",
		culprit:  []string{"job/nightly-export", "activeDeadlineSeconds"},
	},
	{
		// Failed pods remain: the pod-level finding (the container's exit
		// and its log line) is the root cause; the Job's finding is context.
		name: "workload-job-failed-pods-missing-env",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "registry.example.com/shop/migrate-orders:1.3.0"
			j := wlJob(t, c, ns, "migrate-orders", batchv1.JobSpec{BackoffLimit: ptr(int32(2)), Template: wlJobTemplate("migrate", image)},
				wlFailedJobStatus("BackoffLimitExceeded", "Job has reached the specified backoff limit", 3, 12*time.Minute, 2*time.Minute))
			for i, name := range []string{"migrate-orders-5xk2q", "migrate-orders-9tq7w", "migrate-orders-c2m8d"} {
				wlJobPod(t, c, j, name, wlFailedPodStatus("migrate", image, 1, time.Duration(10-4*i)*time.Minute))
				c.SetLogs(ns, name, "migrate", false, "migrate-orders 1.3.0\nFATAL: S3_BUCKET is not set\n")
			}
			c.Event(t, testcluster.EventSpec{Object: j, Reason: "BackoffLimitExceeded", Component: "job-controller", First: time.Now().Add(-2 * time.Minute),
				Message: "Job has reached the specified backoff limit"})
			return []string{"job/migrate-orders"}
		},
		category: "ContainerFailed/Exit1/MissingEnv",
		culprit:  []string{"S3_BUCKET"},
	},
	{
		name: "workload-cronjob-suspended",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			wlCronJob(t, c, ns, "weekly-report", "0 6 * * 1", func(s *batchv1.CronJobSpec) { s.Suspend = ptr(true) },
				batchv1.CronJobStatus{LastScheduleTime: ptr(wlAgo(22 * 24 * time.Hour))})
			return []string{"cronjob/weekly-report"}
		},
		category: "CronJob/Suspended",
		culprit:  []string{"cronjob/weekly-report", "spec.suspend: true"},
	},
	{
		name: "workload-cronjob-too-many-missed",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			cj := wlCronJob(t, c, ns, "metrics-rollup", "* * * * *", nil, batchv1.CronJobStatus{LastScheduleTime: ptr(wlAgo(3 * time.Hour))})
			c.Event(t, testcluster.EventSpec{Object: cj, Reason: "TooManyMissedTimes", Component: "cronjob-controller", Count: 6, First: time.Now().Add(-70 * time.Minute),
				Message: "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"})
			return []string{"cj/metrics-rollup"}
		},
		category: "CronJob/MissedSchedules",
		culprit:  []string{"cronjob/metrics-rollup", "startingDeadlineSeconds"},
	},
	{
		// A run that hangs for hours, and concurrencyPolicy Forbid: every
		// schedule since is skipped.
		name: "workload-cronjob-forbid-blocked",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			cj := wlCronJob(t, c, ns, "sync-inventory", "*/30 * * * *", func(s *batchv1.CronJobSpec) { s.ConcurrencyPolicy = batchv1.ForbidConcurrent }, batchv1.CronJobStatus{})
			image := "registry.example.com/ops/sync-inventory:1.0"
			j := wlJob(t, c, ns, "sync-inventory-29412360", *cj.Spec.JobTemplate.Spec.DeepCopy(),
				batchv1.JobStatus{Active: 1, Ready: ptr(int32(1)), StartTime: ptr(wlAgo(5*time.Hour + 2*time.Minute))}, wlController("CronJob", cj))
			p := wlJobPod(t, c, j, "sync-inventory-29412360-8kd2x", wlReadyStatus("task", image, 5*time.Hour))
			c.SetLogs(ns, p.Name, "task", false, "fetching inventory page 1\nfetching inventory page 2\nretrying upstream request (attempt 412)\n")
			cj.Status = batchv1.CronJobStatus{LastScheduleTime: ptr(wlAgo(5*time.Hour + 2*time.Minute)),
				Active: []corev1.ObjectReference{{Kind: "Job", Namespace: ns, Name: j.Name, UID: j.UID, APIVersion: "batch/v1"}}}
			c.SetObjectStatus(t, cj)
			c.Event(t, testcluster.EventSpec{Object: cj, Type: "Normal", Reason: "JobAlreadyActive", Component: "cronjob-controller", Count: 10,
				First: time.Now().Add(-4*time.Hour - 30*time.Minute), Message: "Not starting job because prior execution is running and concurrency policy is Forbid"})
			return []string{"cronjob/sync-inventory"}
		},
		category: "CronJob/ConcurrencyBlocked",
		culprit:  []string{"job/sync-inventory-29412360", "concurrencyPolicy: Forbid"},
	},
	{
		// Every nightly run outlives its deadline; the job controller
		// deleted the pods, so the Jobs' status is what remains.
		name: "workload-cronjob-failing-jobs",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			now := time.Now().UTC()
			last := time.Date(now.Year(), now.Month(), now.Day(), 1, 0, 0, 0, time.UTC)
			if now.Sub(last) < 5*time.Minute {
				last = last.AddDate(0, 0, -1)
			}
			cj := wlCronJob(t, c, ns, "nightly-billing", "0 1 * * *", func(s *batchv1.CronJobSpec) {
				s.JobTemplate.Spec.ActiveDeadlineSeconds = ptr(int64(3600))
			}, batchv1.CronJobStatus{LastScheduleTime: ptr(metav1.NewTime(last))})
			for day := range 3 {
				at := last.AddDate(0, 0, -day)
				spec := *cj.Spec.JobTemplate.Spec.DeepCopy()
				wlJob(t, c, ns, fmt.Sprintf("nightly-billing-%d", at.Unix()/60), spec,
					wlFailedJobStatus("DeadlineExceeded", "Job was active longer than specified deadline", 1, now.Sub(at), now.Sub(at.Add(time.Hour))), wlController("CronJob", cj))
			}
			return []string{"cronjob/nightly-billing"}
		},
		category: "CronJob/FailingJobs",
		culprit:  []string{"nightly-billing-", "DeadlineExceeded"},
	},
	{
		name: "workload-healthy-statefulset",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			tmpl := wlTemplate("cache", "redis", "redis:7.4.1")
			sts := &appsv1.StatefulSet{
				ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: ns},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(2)), ServiceName: "cache", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}},
					Template: tmpl},
				Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 2, CurrentReplicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2,
					CurrentRevision: "cache-7b9c5d6f8", UpdateRevision: "cache-7b9c5d6f8", CollisionCount: ptr(int32(0))},
			}
			c.Create(t, sts)
			for i := range 2 {
				name := fmt.Sprintf("cache-%d", i)
				labels := maps.Clone(tmpl.Labels)
				labels["apps.kubernetes.io/pod-index"] = strconv.Itoa(i)
				labels["statefulset.kubernetes.io/pod-name"] = name
				labels["controller-revision-hash"] = "cache-7b9c5d6f8"
				c.CreatePod(t, &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, OwnerReferences: []metav1.OwnerReference{wlController("StatefulSet", sts)}},
					Spec:       *tmpl.Spec.DeepCopy(),
					Status:     wlReadyStatus("redis", "redis:7.4.1", 6*time.Hour),
				})
			}
			return []string{"statefulset/cache"}
		},
		healthy: true,
	},
	{
		name: "workload-healthy-daemonset",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			tmpl := wlTemplate("node-agent", "agent", "registry.example.com/ops/node-agent:2.0.3")
			ds := &appsv1.DaemonSet{
				ObjectMeta: metav1.ObjectMeta{Name: "node-agent", Namespace: ns},
				Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "node-agent"}}, Template: tmpl},
				Status: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, NumberReady: 1,
					NumberAvailable: 1, UpdatedNumberScheduled: 1},
			}
			c.Create(t, ds)
			c.CreatePod(t, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "node-agent-q7x2k", Namespace: ns, Labels: maps.Clone(tmpl.Labels), OwnerReferences: []metav1.OwnerReference{wlController("DaemonSet", ds)}},
				Spec:       *tmpl.Spec.DeepCopy(),
				Status:     wlReadyStatus("agent", "registry.example.com/ops/node-agent:2.0.3", 24*time.Hour),
			})
			return []string{"daemonset/node-agent"}
		},
		healthy: true,
	},
	{
		// Runs every ten minutes; the last run, due at the last ten-minute
		// mark, completed.
		name: "workload-healthy-cronjob",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			last := time.Now().UTC().Truncate(10 * time.Minute)
			if time.Since(last) < 2*time.Minute {
				last = last.Add(-10 * time.Minute) // the run just due may not have started yet
			}
			cj := wlCronJob(t, c, ns, "cache-warmer", "*/10 * * * *", nil, batchv1.CronJobStatus{})
			started, done := metav1.NewTime(last.Add(time.Second)), metav1.NewTime(last.Add(40*time.Second))
			wlJob(t, c, ns, fmt.Sprintf("cache-warmer-%d", last.Unix()/60), *cj.Spec.JobTemplate.Spec.DeepCopy(), batchv1.JobStatus{
				Succeeded: 1, StartTime: &started, CompletionTime: &done, Ready: ptr(int32(0)), Terminating: ptr(int32(0)),
				Conditions: []batchv1.JobCondition{
					{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached", Message: "Reached expected number of succeeded pods", LastProbeTime: done, LastTransitionTime: done},
					{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached", Message: "Reached expected number of succeeded pods", LastProbeTime: done, LastTransitionTime: done},
				}}, wlController("CronJob", cj))
			cj.Status = batchv1.CronJobStatus{LastScheduleTime: ptr(metav1.NewTime(last)), LastSuccessfulTime: &done}
			c.SetObjectStatus(t, cj)
			return []string{"cronjob/cache-warmer"}
		},
		healthy: true,
	},
}
