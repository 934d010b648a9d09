package testcluster

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
)

// Annotations the deployment controller writes.
const (
	AnnotationRevision        = "deployment.kubernetes.io/revision"
	AnnotationDesiredReplicas = "deployment.kubernetes.io/desired-replicas"
	AnnotationMaxReplicas     = "deployment.kubernetes.io/max-replicas"
)

// DeploymentSpec describes a Deployment -> ReplicaSet -> Pods chain as the
// deployment and replicaset controllers would have left it.
type DeploymentSpec struct {
	Name      string            // default "web"
	Image     string            // default "nginx:1.27"; ignored if Template is set
	Container string            // container name, default Name; ignored if Template is set
	Labels    map[string]string // selector = template labels; default {"app": Name} (or Template's labels)
	Replicas  int32             // number of pods; 0 means 2
	Revision  int64             // deployment.kubernetes.io/revision; default 1

	// Template is the full pod template (its labels must include Labels).
	// Default: one container Container running Image.
	Template *corev1.PodTemplateSpec

	// PodStatus is written to every pod (the kubelet's part). Zero: pods
	// stay as created, Pending with no status.
	PodStatus corev1.PodStatus

	// Conditions of the Deployment. Nil: derived from pod readiness, i.e.
	// Available=False/MinimumReplicasUnavailable plus
	// Progressing=False/ProgressDeadlineExceeded unless enough pods are
	// Ready, else Available=True/MinimumReplicasAvailable plus
	// Progressing=True/NewReplicaSetAvailable.
	Conditions []appsv1.DeploymentCondition

	// Status and ReplicaSetStatus, if set, are written verbatim instead of
	// the derived ones.
	Status           *appsv1.DeploymentStatus
	ReplicaSetStatus *appsv1.ReplicaSetStatus
}

// DeploymentChain creates a Deployment, its ReplicaSet and the RS's pods in
// ns, linked by controller ownerReferences, with identical templates (plus
// the pod-template-hash label on RS and pods) and revision annotations, so
// `kubectl describe`/`rollout status` and owner walks treat them as a real
// rollout. Statuses are written through the status subresources.
func (c *Cluster) DeploymentChain(t testing.TB, ns string, d DeploymentSpec) (*appsv1.Deployment, *appsv1.ReplicaSet, []*corev1.Pod) {
	t.Helper()
	if d.Name == "" {
		d.Name = "web"
	}
	if d.Image == "" {
		d.Image = "nginx:1.27"
	}
	if d.Container == "" {
		d.Container = d.Name
	}
	if d.Replicas == 0 {
		d.Replicas = 2
	}
	if d.Revision == 0 {
		d.Revision = 1
	}
	var tmpl corev1.PodTemplateSpec
	if d.Template != nil {
		tmpl = *d.Template.DeepCopy()
	} else {
		tmpl.Spec.Containers = []corev1.Container{{Name: d.Container, Image: d.Image}}
	}
	if d.Labels == nil {
		d.Labels = tmpl.Labels
	}
	if len(d.Labels) == 0 {
		d.Labels = map[string]string{"app": d.Name}
	}
	if tmpl.Labels == nil {
		tmpl.Labels = map[string]string{}
	}
	maps.Copy(tmpl.Labels, d.Labels)

	revision := strconv.FormatInt(d.Revision, 10)
	hash := podTemplateHash(&tmpl, d.Revision)
	rsName := d.Name + "-" + hash
	replicas := d.Replicas

	// 1. Deployment.
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:        d.Name,
			Namespace:   ns,
			Annotations: map[string]string{AnnotationRevision: revision},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(d.Labels)},
			Template: tmpl,
		},
	}
	c.Create(t, dep)

	// 2. ReplicaSet owned by it: the template plus pod-template-hash, which
	// is also in its selector so RSs of different revisions never overlap.
	rsTmpl := *tmpl.DeepCopy()
	rsTmpl.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	maxSurge := int32(math.Ceil(float64(replicas) * 0.25)) // default RollingUpdate 25%
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:      rsName,
			Namespace: ns,
			Labels:    maps.Clone(rsTmpl.Labels),
			Annotations: map[string]string{
				AnnotationRevision:        revision,
				AnnotationDesiredReplicas: strconv.Itoa(int(replicas)),
				AnnotationMaxReplicas:     strconv.Itoa(int(replicas + maxSurge)),
			},
			OwnerReferences: []metav1.OwnerReference{controllerRef("Deployment", dep.Name, dep.UID)},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(rsTmpl.Labels)},
			Template: rsTmpl,
		},
	}
	c.Create(t, rs)

	// 3. Pods owned by the ReplicaSet, bound to the fake node.
	pods := make([]*corev1.Pod, 0, replicas)
	ready := int32(0)
	for range replicas {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:            rsName + "-" + utilrand.String(5),
				Namespace:       ns,
				Labels:          maps.Clone(rsTmpl.Labels),
				Annotations:     maps.Clone(rsTmpl.Annotations),
				OwnerReferences: []metav1.OwnerReference{controllerRef("ReplicaSet", rs.Name, rs.UID)},
			},
			Spec:   *rsTmpl.Spec.DeepCopy(),
			Status: *d.PodStatus.DeepCopy(),
		}
		// A kubelet always reports its node's IP.
		if pod.Status.Phase != "" && pod.Status.HostIP == "" && pod.Spec.NodeName == "" &&
			pod.Annotations[AnnotationUnscheduled] != "true" {
			pod.Status.HostIP = "127.0.0.1"
			pod.Status.HostIPs = []corev1.HostIP{{IP: "127.0.0.1"}}
		}
		p := c.CreatePod(t, pod)
		if podReady(p) {
			ready++
		}
		pods = append(pods, p)
	}

	// 4. Statuses, as the controllers would write them.
	if d.ReplicaSetStatus != nil {
		rs.Status = *d.ReplicaSetStatus.DeepCopy()
	} else {
		rs.Status = appsv1.ReplicaSetStatus{
			Replicas:             replicas,
			FullyLabeledReplicas: replicas,
			ReadyReplicas:        ready,
			AvailableReplicas:    ready,
			ObservedGeneration:   rs.Generation,
		}
	}
	c.SetObjectStatus(t, rs)

	if d.Status != nil {
		dep.Status = *d.Status.DeepCopy()
	} else {
		dep.Status = appsv1.DeploymentStatus{
			ObservedGeneration:  dep.Generation,
			Replicas:            replicas,
			UpdatedReplicas:     replicas,
			ReadyReplicas:       ready,
			AvailableReplicas:   ready,
			UnavailableReplicas: replicas - ready,
			Conditions:          d.Conditions,
		}
		if dep.Status.Conditions == nil {
			maxUnavailable := int32(math.Floor(float64(replicas) * 0.25))
			dep.Status.Conditions = deploymentConditions(rsName, ready >= replicas-maxUnavailable, ready == replicas)
		}
	}
	c.SetObjectStatus(t, dep)
	return dep, rs, pods
}

func controllerRef(kind, name string, uid types.UID) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{
		APIVersion:         appsv1.SchemeGroupVersion.String(),
		Kind:               kind,
		Name:               name,
		UID:                uid,
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}

func deploymentConditions(rsName string, available, complete bool) []appsv1.DeploymentCondition {
	now := metav1.NewTime(time.Now())
	cond := func(typ appsv1.DeploymentConditionType, ok bool, reason, msg string) appsv1.DeploymentCondition {
		status := corev1.ConditionFalse
		if ok {
			status = corev1.ConditionTrue
		}
		return appsv1.DeploymentCondition{Type: typ, Status: status, Reason: reason, Message: msg,
			LastUpdateTime: now, LastTransitionTime: now}
	}
	var out []appsv1.DeploymentCondition
	if available {
		out = append(out, cond(appsv1.DeploymentAvailable, true, "MinimumReplicasAvailable", "Deployment has minimum availability."))
	} else {
		out = append(out, cond(appsv1.DeploymentAvailable, false, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."))
	}
	if complete {
		out = append(out, cond(appsv1.DeploymentProgressing, true, "NewReplicaSetAvailable", fmt.Sprintf("ReplicaSet %q has successfully progressed.", rsName)))
	} else {
		out = append(out, cond(appsv1.DeploymentProgressing, false, "ProgressDeadlineExceeded", fmt.Sprintf("ReplicaSet %q has timed out progressing.", rsName)))
	}
	return out
}

// podTemplateHash imitates the controller's label: an FNV hash of the
// template (and the revision, standing in for collisionCount) rendered with
// the alphabet of safe label characters.
func podTemplateHash(tmpl *corev1.PodTemplateSpec, revision int64) string {
	h := fnv.New32a()
	b, _ := json.Marshal(tmpl)
	h.Write(b)
	fmt.Fprint(h, revision)
	return utilrand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
