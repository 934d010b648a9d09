package main

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// story is the demo's history on one clock, as offsets from the demo's
// now: checkout has run revision 1 for nine days; revision 2 (a new image)
// was rolled out 12 minutes ago; its pods have crash-looped since, and the
// rollout hit its 600 s progress deadline 2 minutes ago.
type story struct{ now time.Time }

func (s story) at(d time.Duration) time.Time { return s.now.Add(d).Truncate(time.Second) }
func (s story) meta(d time.Duration) metav1.Time {
	return metav1.NewTime(s.at(d))
}

// The moments of the story, before now.
const (
	deploymentCreated = -9 * 24 * time.Hour
	rolloutStarted    = -12 * time.Minute                 // revision 2's ReplicaSet
	podsCreated       = rolloutStarted + time.Second      // by that ReplicaSet
	podsStarted       = podsCreated + 2*time.Second       // scheduled, pulled, started
	availabilityLost  = podsStarted + time.Second         // the old pods gone, the new not ready
	firstBackOff      = podsStarted + 40*time.Second      // after the first crashes
	lastRunStarted    = -2*time.Minute - 10*time.Second   // the 6th restart
	lastRunEnded      = lastRunStarted + 2*time.Second    // exit 1, config error
	progressDeadline  = 600 * time.Second                 // the Deployment's default
	deadlineExceeded  = rolloutStarted + progressDeadline // 2 minutes ago
	lastBackOff       = -5 * time.Second                  // it goes on
)

// brokenDeployment builds what the deployment controller and a kubelet would
// have left behind: revision 2 of checkout changed the image, and its pods
// exit because a required environment variable is missing. The API server
// stamps every object created now; they are backdated to the story's times
// (testcluster.Backdate), so that each is older than what it caused.
func brokenDeployment(ctx context.Context, c *testcluster.Cluster, now time.Time) error {
	s := story{now: now}
	cs := c.Client
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	labels := map[string]string{"app": "checkout"}
	template := func(image string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: image,
				Env: []corev1.EnvVar{{Name: "DB_HOST", Value: "postgres.shop.svc"}}}}},
		}
	}
	replicas := int32(2)
	deadline := int32(progressDeadline / time.Second)
	dep, err := cs.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "checkout", Annotations: map[string]string{"deployment.kubernetes.io/revision": "2"}},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template("shop/checkout:2.4.0"),
			ProgressDeadlineSeconds: &deadline},
	}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	backdate := []struct {
		resource, name string
		at             time.Duration
	}{{"deployments", dep.Name, deploymentCreated}}
	var newRS *appsv1.ReplicaSet
	for _, rs := range []struct{ rev, hash, image string }{{"1", "6b9c7d5f4", "shop/checkout:2.3.1"}, {"2", "7d9f6c5b8", "shop/checkout:2.4.0"}} {
		tmpl := template(rs.image)
		tmpl.Labels = map[string]string{"app": "checkout", "pod-template-hash": rs.hash}
		n := int32(0)
		created := deploymentCreated + time.Second
		if rs.rev == "2" {
			n, created = replicas, rolloutStarted
		}
		got, err := cs.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: "checkout-" + rs.hash, Labels: tmpl.Labels,
				Annotations:     map[string]string{"deployment.kubernetes.io/revision": rs.rev},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(dep, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
			Spec: appsv1.ReplicaSetSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: tmpl.Labels}, Template: tmpl},
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		backdate = append(backdate, struct {
			resource, name string
			at             time.Duration
		}{"replicasets", got.Name, created})
		if rs.rev == "2" {
			newRS = got
		}
	}
	for _, sfx := range []string{"x2kq9", "p7w4m"} {
		name := newRS.Name + "-" + sfx
		tmpl := newRS.Spec.Template
		pod, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: tmpl.Labels,
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(newRS, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
			Spec: func() corev1.PodSpec { p := tmpl.Spec; p.NodeName = c.NodeName; return p }(),
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		started := s.meta(podsStarted)
		pod.Status = corev1.PodStatus{
			Phase: corev1.PodRunning, HostIP: "127.0.0.1", StartTime: &started,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: started},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: s.meta(podsCreated)}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "api", Image: "shop/checkout:2.4.0", RestartCount: 6,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container=api pod=" + name}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 1, Reason: "Error", StartedAt: s.meta(lastRunStarted), FinishedAt: s.meta(lastRunEnded)}}}},
		}
		if _, err := cs.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			return err
		}
		c.SetLogs(ns, name, "api", true, "checkout 2.4.0 starting\nconnecting to postgres.shop.svc:5432\nFATAL config: required env DATABASE_URL is empty\n")
		if _, err := cs.CoreV1().Events(ns).Create(ctx, &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{GenerateName: pod.Name + "."},
			InvolvedObject: corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, Namespace: ns, UID: pod.UID, FieldPath: "spec.containers{api}"},
			Type:           corev1.EventTypeWarning, Reason: "BackOff", Count: 37,
			Message:        fmt.Sprintf("Back-off restarting failed container api in pod %s_%s(%s)", pod.Name, ns, pod.UID),
			FirstTimestamp: s.meta(firstBackOff), LastTimestamp: s.meta(lastBackOff),
			Source: corev1.EventSource{Component: "kubelet", Host: c.NodeName},
		}, metav1.CreateOptions{}); err != nil {
			return err
		}
		backdate = append(backdate, struct {
			resource, name string
			at             time.Duration
		}{"pods", pod.Name, podsCreated})
	}
	dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 2, UpdatedReplicas: 2, UnavailableReplicas: 2,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability.",
				LastUpdateTime: s.meta(availabilityLost), LastTransitionTime: s.meta(availabilityLost)},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: fmt.Sprintf("ReplicaSet %q has timed out progressing.", newRS.Name),
				LastUpdateTime: s.meta(deadlineExceeded), LastTransitionTime: s.meta(deadlineExceeded)}}}
	if _, err = cs.AppsV1().Deployments(ns).UpdateStatus(ctx, dep, metav1.UpdateOptions{}); err != nil {
		return err
	}
	// Last, once nothing else writes these objects.
	for _, b := range backdate {
		if err := c.Backdate(ctx, b.resource, ns, b.name, s.at(b.at)); err != nil {
			return err
		}
	}
	return nil
}
