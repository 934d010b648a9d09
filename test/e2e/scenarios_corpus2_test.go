package e2e

import (
	"fmt"
	"maps"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// A second batch of scenarios from real material (issue threads, the
// Kubernetes components' own message strings, frameworks' log lines), each
// citing its source; captured into test/scenarios and then removed from here.

func init() { register(corpus2Scenarios...) }

// c2Template is a pod template of one container app listening on port.
func c2Template(app, container, image string, port int32, mutate ...func(*corev1.PodSpec)) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: container, Image: image,
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: corev1.ProtocolTCP}}}}},
	}
	for _, m := range mutate {
		m(&t.Spec)
	}
	return t
}

// c2Ready is a serving pod status for container, started that long ago.
func c2Ready(container, image string, started time.Duration) corev1.PodStatus {
	return wlReadyStatus(container, image, started)
}

// c2Deployment creates a Deployment at revision rev with its status.
func c2Deployment(t *testing.T, c *testcluster.Cluster, ns, name string, replicas int32, rev int64, tmpl corev1.PodTemplateSpec, status appsv1.DeploymentStatus) *appsv1.Deployment {
	t.Helper()
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{testcluster.AnnotationRevision: strconv.FormatInt(rev, 10)}},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(tmpl.Labels)},
			Template: tmpl},
		Status: status,
	}
	d.Status.ObservedGeneration = 1
	c.Create(t, d)
	return d
}

// c2Revision creates a ReplicaSet of dep at revision rev with n pods in the
// given status (the replicaset controller's and the kubelet's parts).
func c2Revision(t *testing.T, c *testcluster.Cluster, dep *appsv1.Deployment, hash string, rev int64, tmpl corev1.PodTemplateSpec, replicas, pods int32, podStatus corev1.PodStatus, rsStatus appsv1.ReplicaSetStatus, suffixes ...string) (*appsv1.ReplicaSet, []*corev1.Pod) {
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
	c.SetObjectStatus(t, rs)
	var out []*corev1.Pod
	for i := range pods {
		name := fmt.Sprintf("%s-%c%c%c%c%c", rs.Name, 'a'+i, 'k', 'q', 'z', 'x')
		if int(i) < len(suffixes) {
			name = rs.Name + "-" + suffixes[i]
		}
		out = append(out, c.CreatePod(t, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: dep.Namespace, Labels: maps.Clone(tmpl.Labels),
				OwnerReferences: []metav1.OwnerReference{wlController("ReplicaSet", rs)}},
			Spec:   *tmpl.Spec.DeepCopy(),
			Status: podStatus,
		}))
	}
	return rs, out
}

func c2DepCond(typ appsv1.DeploymentConditionType, ok bool, reason, msg string, since time.Duration) appsv1.DeploymentCondition {
	st := corev1.ConditionFalse
	if ok {
		st = corev1.ConditionTrue
	}
	return appsv1.DeploymentCondition{Type: typ, Status: st, Reason: reason, Message: msg, LastUpdateTime: wlAgo(since), LastTransitionTime: wlAgo(since)}
}

// c2Service creates a ClusterIP Service with one TCP port and, for pods,
// the EndpointSlice the EndpointSlice controller would publish for them.
func c2Service(t *testing.T, c *testcluster.Cluster, ns, name string, selector map[string]string, port, target int32, ready bool, pods ...*corev1.Pod) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: maps.Clone(selector)},
		Spec: corev1.ServiceSpec{Selector: selector,
			Ports: []corev1.ServicePort{{Name: "http", Port: port, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(target)}}},
	}
	c.Create(t, svc)
	if len(pods) == 0 {
		return svc
	}
	proto := corev1.ProtocolTCP
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-8h2mq", Namespace: ns, Labels: map[string]string{
			discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(target), Protocol: &proto}},
	}
	for i, p := range pods {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{fmt.Sprintf("10.244.0.%d", 50+i)},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr(ready), Serving: ptr(ready), Terminating: ptr(false)},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Name: p.Name, Namespace: p.Namespace, UID: p.UID},
			NodeName:   ptr(p.Spec.NodeName),
		})
	}
	c.Create(t, s)
	return svc
}

// c2HPA creates an HPA on Deployment target at CPU utilization util with
// the controller's conditions.
func c2HPA(t *testing.T, c *testcluster.Cluster, ns, name, target string, minR, maxR, current, util int32, conds ...autoscalingv2.HorizontalPodAutoscalerCondition) *autoscalingv2.HorizontalPodAutoscaler {
	t.Helper()
	h := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: target},
			MinReplicas:    &minR, MaxReplicas: maxR,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &util}}}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: current, DesiredReplicas: current, Conditions: conds},
	}
	c.Create(t, h)
	return h
}

func c2HPACond(typ autoscalingv2.HorizontalPodAutoscalerConditionType, ok bool, reason, msg string) autoscalingv2.HorizontalPodAutoscalerCondition {
	st := corev1.ConditionFalse
	if ok {
		st = corev1.ConditionTrue
	}
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: typ, Status: st, Reason: reason, Message: msg, LastTransitionTime: minutesAgo(25)}
}

// c2CrashDeployment is a Deployment whose pods crash-loop with exit code
// and the previous instance's log.
func c2CrashDeployment(t *testing.T, c *testcluster.Cluster, ns, name, image string, port int32, code int32, log string, mutate ...func(*corev1.PodSpec)) []*corev1.Pod {
	t.Helper()
	tmpl := c2Template(name, name, image, port, mutate...)
	st := crashStatus(name, code, "Error", 7)
	st.ContainerStatuses[0].Image = image
	st.ContainerStatuses[0].ImageID = image + "@sha256:0c"
	_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: name, Replicas: 1, Template: &tmpl, PodStatus: st})
	for _, p := range pods {
		c.SetLogs(ns, p.Name, name, true, log)
		c.SetLogs(ns, p.Name, name, false, "")
		c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 31, First: time.Now().Add(-24 * time.Minute), FieldPath: "spec.containers{" + name + "}",
			Message: fmt.Sprintf("Back-off restarting failed container %s in pod %s_%s(%s)", name, p.Name, ns, p.UID)})
	}
	return pods
}

func c2Env(kv ...string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		for i := 0; i+1 < len(kv); i += 2 {
			s.Containers[0].Env = append(s.Containers[0].Env, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
		}
	}
}

func c2PodEnv(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { c2Env(kv...)(&p.Spec) }
}

var corpus2Scenarios = []scenario{}
