package workload

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestRollout: when a pod of the new revision has a cause of its own (read
// from the pod-level rules the rollout rule requires), the rollout is that
// cause's context: it names the revision that introduced it and what its
// template changed, even while the Deployment still says Available.
func TestRollout(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes, two := true, int32(2)
	template := func(image string, env ...corev1.EnvVar) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image, Env: env}}}}
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "d1"},
		Spec: appsv1.DeploymentSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: template("shop/web:2.4.0")},
		Status: appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 1, AvailableReplicas: 2, Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}, {Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated"}}}}
	owner := []metav1.OwnerReference{{Kind: "Deployment", Name: "web", UID: "d1", Controller: &yes}}
	rs := func(name, uid, rev string, tmpl corev1.PodTemplateSpec, replicas int32) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("rs-" + uid), OwnerReferences: owner,
			Annotations: map[string]string{"deployment.kubernetes.io/revision": rev}, CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
			Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, Template: tmpl}, Status: appsv1.ReplicaSetStatus{Replicas: replicas}}
	}
	old := rs("web-old", "old", "1", template("shop/web:2.3.1", corev1.EnvVar{Name: "DATABASE_URL", Value: "postgres://db"}), 2)
	cur := rs("web-new", "new", "2", template("shop/web:2.4.0"), 1)
	crashing := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-new-aaaaa", Namespace: "shop", UID: "p1",
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: cur.Name, UID: cur.UID, Controller: &yes}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/web:2.4.0"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 4,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "shop", UID: "d1"},
		Deployments: []*appsv1.Deployment{d}, ReplicaSets: []*appsv1.ReplicaSet{old, cur}, Pods: []*corev1.Pod{crashing},
		Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: crashing.Name, Container: "app", Previous: true, Text: "FATAL config: required env DATABASE_URL is empty\n"}}}

	fs := ruletest.Run(Rollout, b, now)
	if len(fs) != 1 || !fs[0].Context {
		t.Fatalf("findings %+v, want one context finding", fs)
	}
	said := strings.Join(append(fs[0].Contributing, fs[0].Title, fs[0].Summary), "\n")
	for _, want := range []string{"revision 2", "DATABASE_URL"} {
		if !strings.Contains(said, want) {
			t.Errorf("the rollout context does not say %q:\n%s", want, said)
		}
	}
}
