package e2e

import (
	"fmt"
	"maps"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// A third batch of scenarios from real material, on the Kubernetes side:
// the kubelet's, scheduler's, controllers' and volume plugins' own messages
// as recorded in public issue threads (each source cites one) and as worded
// in k8s.io/kubernetes v1.37.1. Captured into test/scenarios, then removed.

func init() { register(corpus3Scenarios...) }

// c3Pod creates pod name (container app running image) with status.
func c3Pod(t *testing.T, c *testcluster.Cluster, ns, name, image string, status corev1.PodStatus, mutate ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	return c.CreatePod(t, simplePod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) {
		p.Namespace = ns
		p.Spec.Containers[0].Image = image
		p.Status = status
	}}, mutate...)...))
}

// c3PullFailure is a pod whose image pull fails with the runtime's error
// pullErr, with the kubelet's events for it.
func c3PullFailure(t *testing.T, c *testcluster.Cluster, ns, name, image, pullErr string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	p := c3Pod(t, c, ns, name, image, rcWaiting(image, "ImagePullBackOff", fmt.Sprintf("Back-off pulling image %q", image)), mutate...)
	rcEvent(t, c, p, corev1.EventTypeNormal, "Pulling", fmt.Sprintf("Pulling image %q", image), 6)
	rcEvent(t, c, p, corev1.EventTypeWarning, "Failed", fmt.Sprintf("Failed to pull image %q: %s", image, pullErr), 6)
	rcEvent(t, c, p, corev1.EventTypeWarning, "Failed", "Error: ErrImagePull", 6)
	rcEvent(t, c, p, corev1.EventTypeNormal, "BackOff", fmt.Sprintf("Back-off pulling image %q", image), 74)
	rcEvent(t, c, p, corev1.EventTypeWarning, "Failed", "Error: ImagePullBackOff", 74)
	return p
}

// c3Creating: the kubelet is still setting the pod's volumes up.
func c3Creating(image string) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", StartTime: ptr(minutesAgo(19)),
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(19)},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(19)},
			{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [app]", LastTransitionTime: minutesAgo(19)},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [app]", LastTransitionTime: minutesAgo(19)}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}}
}

// c3BoundCSIClaim creates claim "data" bound to a scenario-scoped CSI
// PersistentVolume of driver, and returns the volume's name.
func c3BoundCSIClaim(t *testing.T, c *testcluster.Cluster, ns, class, driver, handle string) string {
	t.Helper()
	pvName := "pvc-" + ns
	ann := map[string]string{"pv.kubernetes.io/provisioned-by": driver, scenarioScoped: "true"}
	c.Create(t, &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName, Annotations: ann},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("20Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: class,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}},
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: "data"},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	})
	dropAfterScenario(t, c, "PersistentVolume", pvName, ann)
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: ns},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, VolumeName: pvName,
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("20Gi")}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("20Gi")}},
	}
	c.Create(t, pvc)
	return pvName
}

// c3FailedCreateDeployment is a Deployment whose ReplicaSet cannot create
// any pod: the replicaset controller's FailedCreate event says why.
func c3FailedCreateDeployment(t *testing.T, c *testcluster.Cluster, ns, name string, tmpl corev1.PodTemplateSpec, msg string) {
	t.Helper()
	replicas := int32(2)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{testcluster.AnnotationRevision: "1"}},
		Spec:       appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(tmpl.Labels)}, Template: tmpl},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, UnavailableReplicas: 2, Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability.", LastUpdateTime: minutesAgo(30), LastTransitionTime: minutesAgo(30)},
			{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: msg, LastUpdateTime: minutesAgo(30), LastTransitionTime: minutesAgo(30)},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: fmt.Sprintf("ReplicaSet %q has timed out progressing.", name+"-6d9f7c8b5"), LastUpdateTime: minutesAgo(20), LastTransitionTime: minutesAgo(20)}}},
	}
	c.Create(t, d)
	rsTmpl := *tmpl.DeepCopy()
	rsTmpl.Labels = maps.Clone(tmpl.Labels)
	rsTmpl.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = "6d9f7c8b5"
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-6d9f7c8b5", Namespace: ns, Labels: maps.Clone(rsTmpl.Labels),
			Annotations:     map[string]string{testcluster.AnnotationRevision: "1", testcluster.AnnotationDesiredReplicas: "2", testcluster.AnnotationMaxReplicas: "3"},
			OwnerReferences: []metav1.OwnerReference{wlController("Deployment", d)}},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(rsTmpl.Labels)}, Template: rsTmpl},
		Status: appsv1.ReplicaSetStatus{ObservedGeneration: 1, Conditions: []appsv1.ReplicaSetCondition{
			{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: msg, LastTransitionTime: minutesAgo(30)}}},
	}
	c.Create(t, rs)
	c.Event(t, testcluster.EventSpec{Object: rs, Reason: "FailedCreate", Component: "replicaset-controller", Count: 17, First: time.Now().Add(-30 * time.Minute),
		Message: "Error creating: " + msg})
	c.Event(t, testcluster.EventSpec{Object: d, Type: corev1.EventTypeNormal, Reason: "ScalingReplicaSet", Component: "deployment-controller", First: time.Now().Add(-30 * time.Minute),
		Message: fmt.Sprintf("Scaled up replica set %s from 0 to 2", rs.Name)})
}

func c3Template(app, image string, mutate ...func(*corev1.PodSpec)) corev1.PodTemplateSpec {
	return c2Template(app, app, image, 8080, mutate...)
}

// corpus3Scenarios are new scenarios from real material, to be captured and
// then removed from here.
var corpus3Scenarios = []scenario{}
