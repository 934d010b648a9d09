package bundletest

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// Builders for workload bundles: objects linked by controller references
// as the controllers leave them.

func CtrlRef(kind, name string) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID("uid-" + name), Controller: &yes}
}

func I32(v int32) *int32 { return &v }

func I64(v int64) *int64 { return &v }

func ObjMeta(name string, age time.Duration, owner ...metav1.OwnerReference) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-" + name), CreationTimestamp: TS(-age), OwnerReferences: owner}
}

func PodTemplate(image string, mutate ...func(*corev1.PodSpec)) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image,
			Env:       []corev1.EnvVar{{Name: "DATABASE_URL", Value: "postgres://db:5432/shop"}, {Name: "LOG_LEVEL", Value: "info"}},
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
				PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3},
		}}},
	}
	for _, m := range mutate {
		m(&t.Spec)
	}
	return t
}

func NewDeployment(replicas int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: ObjMeta("web", 48*time.Hour),
		Spec: appsv1.DeploymentSpec{Replicas: I32(replicas), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: PodTemplate("shop/web:2.4.0")},
		Status: appsv1.DeploymentStatus{Replicas: replicas, Conditions: conds},
	}
}

func StuckConditions(rs string) []appsv1.DeploymentCondition {
	return []appsv1.DeploymentCondition{
		{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
		{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
			Message: fmt.Sprintf("ReplicaSet %q has timed out progressing.", rs), LastTransitionTime: TS(-5 * time.Minute), LastUpdateTime: TS(-5 * time.Minute)},
	}
}

func NewReplicaSet(name string, rev int64, age time.Duration, tmpl corev1.PodTemplateSpec, replicas, ready int32) *appsv1.ReplicaSet {
	m := ObjMeta(name, age, CtrlRef("Deployment", "web"))
	m.Annotations = map[string]string{"deployment.kubernetes.io/revision": fmt.Sprint(rev)}
	m.Labels = map[string]string{"app": "web", "pod-template-hash": strings.TrimPrefix(name, "web-")}
	return &appsv1.ReplicaSet{ObjectMeta: m, Spec: appsv1.ReplicaSetSpec{Replicas: I32(replicas), Template: tmpl},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: ready, AvailableReplicas: ready}}
}

func OwnedPod(name string, owner metav1.OwnerReference, mutate ...func(*corev1.Pod)) *corev1.Pod {
	return Pod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) { p.OwnerReferences = []metav1.OwnerReference{owner} }}, mutate...)...)
}

func RunningUnready(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: false,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: TS(-20 * time.Minute)}}}}
}

func PendingNoDecision(p *corev1.Pod) {
	p.Spec.NodeName = ""
	p.Status = corev1.PodStatus{Phase: corev1.PodPending}
}

func WorkloadBundle(kind, name string, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target:  fault.Resource{Kind: kind, Name: name, Namespace: "shop", UID: "uid-" + name},
		Cluster: bundle.ClusterInfo{Context: "prod", Cluster: "prod-east"},
		Nodes:   []*corev1.Node{Node("node-1", "4")},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func ObjEvent(kind, name, typ, reason, msg string, count int32, last time.Duration) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name + "." + strings.ToLower(reason), Namespace: "shop"},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name, Namespace: "shop", UID: types.UID("uid-" + name)},
		Type:           typ, Reason: reason, Message: msg, Count: count,
		FirstTimestamp: TS(-last - 10*time.Minute), LastTimestamp: TS(-last),
	}
}

// TwoRevisions is a Deployment rolled from revision 1 (2 ready pods left)
// to revision 2 (newTmpl), whose pod is built by newPod.
func TwoRevisions(newTmpl corev1.PodTemplateSpec, newPod ...func(*corev1.Pod)) *bundle.Bundle {
	return WorkloadBundle("Deployment", "web", func(b *bundle.Bundle) {
		d := NewDeployment(3, StuckConditions("web-new")...)
		d.Spec.Template = newTmpl
		d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 1, 2, 2, 1
		oldRS := NewReplicaSet("web-old", 1, 48*time.Hour, PodTemplate("shop/web:2.3.1"), 2, 2)
		newRS := NewReplicaSet("web-new", 2, 20*time.Minute, newTmpl, 1, 0)
		b.Deployments = []*appsv1.Deployment{d}
		b.ReplicaSets = []*appsv1.ReplicaSet{oldRS, newRS}
		b.Pods = []*corev1.Pod{
			OwnedPod("web-new-aaaaa", CtrlRef("ReplicaSet", "web-new"), newPod...),
			OwnedPod("web-old-bbbbb", CtrlRef("ReplicaSet", "web-old"), Healthy),
		}
	})
}

func WithoutEnv(name string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		var kept []corev1.EnvVar
		for _, e := range s.Containers[0].Env {
			if e.Name != name {
				kept = append(kept, e)
			}
		}
		s.Containers[0].Env = kept
	}
}

func ReadinessPath(path string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) { s.Containers[0].ReadinessProbe.HTTPGet.Path = path }
}

func NewStatefulSet(replicas, existing, ready int32, mutate ...func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{
		ObjectMeta: ObjMeta("db", 24*time.Hour),
		Spec: appsv1.StatefulSetSpec{Replicas: I32(replicas), ServiceName: "db",
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, Template: PodTemplate("postgres:16")},
		Status: appsv1.StatefulSetStatus{Replicas: existing, ReadyReplicas: ready, CurrentRevision: "db-6c8f7", UpdateRevision: "db-6c8f7"},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

func NewDaemonSet(desired, current, ready int32, mutate ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{
		ObjectMeta: ObjMeta("agent", 24*time.Hour),
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: PodTemplate("shop/agent:1.0")},
		Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: desired, CurrentNumberScheduled: current, NumberReady: ready,
			NumberAvailable: ready, NumberUnavailable: desired - ready},
	}
	for _, m := range mutate {
		m(ds)
	}
	return ds
}

func LabeledNode(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	n := Node(name, "4")
	n.Labels = labels
	n.Spec.Taints = taints
	return n
}

func NewJob(name string, reason, msg string, failed int32, mutate ...func(*batchv1.Job)) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: ObjMeta(name, time.Hour),
		Spec: batchv1.JobSpec{BackoffLimit: I32(3), Completions: I32(1), Parallelism: I32(1),
			Template: PodTemplate("shop/report:1.0", func(s *corev1.PodSpec) { s.RestartPolicy = corev1.RestartPolicyNever })},
		Status: batchv1.JobStatus{Failed: failed, StartTime: &metav1.Time{Time: Now.Add(-time.Hour)}},
	}
	if reason != "" {
		j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastTransitionTime: TS(-10 * time.Minute)}}
	}
	for _, m := range mutate {
		m(j)
	}
	return j
}

func CompleteJob(name string, age time.Duration, owner metav1.OwnerReference) *batchv1.Job {
	j := NewJob(name, "", "", 0)
	j.OwnerReferences = []metav1.OwnerReference{owner}
	j.CreationTimestamp = TS(-age)
	j.Status.StartTime = &metav1.Time{Time: Now.Add(-age)}
	j.Annotations = map[string]string{batchv1.CronJobScheduledTimestampAnnotation: Now.Add(-age).Format(time.RFC3339)}
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	j.Status.Succeeded = 1
	return j
}

func FailedPod(code int32, reason string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Status = corev1.PodStatus{Phase: corev1.PodFailed, StartTime: &metav1.Time{Time: Now.Add(-20 * time.Minute)},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, StartedAt: TS(-19 * time.Minute), FinishedAt: TS(-18 * time.Minute)}}}}}
	}
}

func PodLogs(pod, text string) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: pod, Container: "app", Text: text})
	}
}

func NewCronJob(schedule string, mutate ...func(*batchv1.CronJob)) *batchv1.CronJob {
	cj := &batchv1.CronJob{
		ObjectMeta: ObjMeta("nightly", 30*24*time.Hour),
		Spec: batchv1.CronJobSpec{Schedule: schedule, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Template: PodTemplate("shop/report:1.0", func(s *corev1.PodSpec) { s.RestartPolicy = corev1.RestartPolicyNever })}}},
	}
	for _, m := range mutate {
		m(cj)
	}
	return cj
}
