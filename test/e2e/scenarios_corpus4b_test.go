package e2e

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// A fourth batch of Kubernetes-side scenarios from real material, aimed at
// what an earlier round reported healthy with confidence: Services whose
// selector or port points elsewhere, pods a NetworkPolicy isolates, Running
// and Ready pods whose log repeats an error, DaemonSets that skip nodes,
// each Service type's promise, Ingress backends, HPAs, Jobs, CronJobs,
// claims, nodes, terminating namespaces, ReplicaSets and StatefulSets. Each
// cites its source; controllers' wording is k8s.io/kubernetes v1.37.1's.
// The hits are captured into test/scenarios; the misses stay here (the
// _net, _wl and _infra files), registered only with
// KUBECTL_TRIAGE_REAL_MISSES=1, each with what the report says today and
// the general check it lacks.

func init() { register(corpus4bScenarios...) }

// c4bReady is a serving, Ready pod with its own address.
func c4bReady(container, image, ip string, started time.Duration) corev1.PodStatus {
	st := wlReadyStatus(container, image, started)
	st.PodIP, st.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	return st
}

// c4bDeploy is a Deployment of one container (named like it) whose pods
// carry labels, each with its own address from ipBase (a format with one
// %d), as the kubelet reports them.
func c4bDeploy(t *testing.T, c *testcluster.Cluster, ns, name string, labels map[string]string, image string, port int32, replicas int32, status corev1.PodStatus, ipBase string, mutate ...func(*corev1.PodSpec)) (*appsv1.Deployment, *appsv1.ReplicaSet, []*corev1.Pod) {
	t.Helper()
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: image}}}}
	if port != 0 {
		tmpl.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: port, Protocol: corev1.ProtocolTCP}}
	}
	for _, m := range mutate {
		m(&tmpl.Spec)
	}
	d, rs, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: name, Labels: labels, Replicas: replicas, Template: &tmpl, PodStatus: status})
	for i, p := range pods {
		if ipBase == "" || p.Status.PodIP == "" {
			continue
		}
		ip := fmt.Sprintf(ipBase, i+11)
		p.Status.PodIP, p.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
		pods[i] = c.SetStatus(t, p)
	}
	return d, rs, pods
}

// c4bService creates a ClusterIP Service.
func c4bService(t *testing.T, c *testcluster.Cluster, ns, name string, selector map[string]string, ports []corev1.ServicePort, mutate ...func(*corev1.Service)) *corev1.Service {
	t.Helper()
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{Selector: selector, Ports: ports}}
	for _, m := range mutate {
		m(s)
	}
	c.Create(t, s)
	return s
}

func c4bPort(name string, port int32, target intstr.IntOrString) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: port, TargetPort: target, Protocol: corev1.ProtocolTCP}
}

// c4bSlice is the EndpointSlice the endpointslice controller keeps for
// Service svc: one endpoint per pod, ready as the pod is.
func c4bSlice(t *testing.T, c *testcluster.Cluster, ns, svc string, ports []discoveryv1.EndpointPort, pods ...*corev1.Pod) {
	t.Helper()
	eps := []discoveryv1.Endpoint{}
	for _, p := range pods {
		ready := false
		for _, cond := range p.Status.Conditions {
			ready = ready || (cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue)
		}
		node := p.Spec.NodeName
		eps = append(eps, discoveryv1.Endpoint{Addresses: []string{p.Status.PodIP},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr(ready), Serving: ptr(ready), Terminating: ptr(false)},
			NodeName:   &node, TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: p.Name, UID: p.UID}})
	}
	c.Create(t, &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: svc + "-x7k2p", Namespace: ns, Labels: map[string]string{
			discoveryv1.LabelServiceName: svc, discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}},
		AddressType: discoveryv1.AddressTypeIPv4, Endpoints: eps, Ports: ports})
}

func c4bSlicePort(name string, port int32) []discoveryv1.EndpointPort {
	p := discoveryv1.EndpointPort{Port: ptr(port), Protocol: ptr(corev1.ProtocolTCP)}
	if name != "" {
		p.Name = ptr(name)
	}
	return []discoveryv1.EndpointPort{p}
}

// c4bNode is a Ready worker node only its own scenario sees.
func c4bNode(t *testing.T, c *testcluster.Cluster, name string, mutate ...func(*corev1.Node)) *corev1.Node {
	t.Helper()
	ann := map[string]string{scenarioScoped: "true"}
	n := schedNode(t, c, name, append([]func(*corev1.Node){func(n *corev1.Node) { n.Annotations = ann }}, mutate...)...)
	dropAfterScenario(t, c, "Node", name, ann)
	return n
}

func c4bTaint(key, value string, effect corev1.TaintEffect) func(*corev1.Node) {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func c4bLabel(kv ...string) func(*corev1.Node) {
	return func(n *corev1.Node) {
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

// c4bDaemonSet creates a DaemonSet of one container and writes status.
func c4bDaemonSet(t *testing.T, c *testcluster.Cluster, ns, name, image string, mutate func(*corev1.PodSpec), status appsv1.DaemonSetStatus) *appsv1.DaemonSet {
	t.Helper()
	labels := map[string]string{"app.kubernetes.io/name": name}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{"deprecated.daemonset.template.generation": "1"}},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: image}}}}}}
	if mutate != nil {
		mutate(&ds.Spec.Template.Spec)
	}
	c.Create(t, ds)
	status.ObservedGeneration = ds.Generation
	ds.Status = status
	c.SetObjectStatus(t, ds)
	return ds
}

// c4bDaemonPod is the DaemonSet's pod for node, pinned to it by the
// node affinity the daemonset controller writes.
func c4bDaemonPod(t *testing.T, c *testcluster.Cluster, ds *appsv1.DaemonSet, node, suffix string, status corev1.PodStatus) *corev1.Pod {
	t.Helper()
	labels := maps.Clone(ds.Spec.Template.Labels)
	labels["controller-revision-hash"] = "6c94db8bb8"
	labels["pod-template-generation"] = "1"
	spec := *ds.Spec.Template.Spec.DeepCopy()
	spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
	if status.Phase != corev1.PodPending || status.HostIP != "" {
		spec.NodeName = node
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: ds.Name + "-" + suffix, Namespace: ds.Namespace, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{wlController("DaemonSet", ds)}}, Spec: spec, Status: status}
	if spec.NodeName == "" {
		p.Annotations = map[string]string{testcluster.AnnotationUnscheduled: "true"}
	}
	return c.CreatePod(t, p)
}

// c4bStamps renders n log records of format (which takes the time first)
// every step, the last one a few seconds ago.
func c4bStamps(n int, step time.Duration, layout, format string, args ...any) string {
	var b strings.Builder
	start := time.Now().Add(-time.Duration(n) * step).UTC()
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, format, append([]any{start.Add(time.Duration(i) * step).Format(layout)}, args...)...)
	}
	return b.String()
}

// c4bAPIServerIP is the ClusterIP of the kubernetes Service in default, the
// address in-cluster clients dial.
func c4bAPIServerIP(t *testing.T, c *testcluster.Cluster) string {
	t.Helper()
	s, err := c.Client.CoreV1().Services("default").Get(context.Background(), "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get service kubernetes: %v", err)
	}
	return s.Spec.ClusterIP
}

// c4bReplicaSet creates ReplicaSet name, controlled by owner, with n Ready
// pods listening on port, each with its own address from ipBase.
func c4bReplicaSet(t *testing.T, c *testcluster.Cluster, ns, name string, labels map[string]string, image string, n, port int32, owner metav1.OwnerReference, ipBase string) []*corev1.Pod {
	t.Helper()
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image,
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: corev1.ProtocolTCP}}}}}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: maps.Clone(labels), OwnerReferences: []metav1.OwnerReference{owner}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr(n), Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)}, Template: tmpl}}
	c.Create(t, rs)
	var pods []*corev1.Pod
	for i := int32(0); i < n; i++ {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%c%c%c%c%c", name, 'b'+i, 'x', 'k'+i, 'q', '2'+i), Namespace: ns, Labels: maps.Clone(labels),
			OwnerReferences: []metav1.OwnerReference{wlController("ReplicaSet", rs)}},
			Spec: *tmpl.Spec.DeepCopy(), Status: c4bReady("app", image, fmt.Sprintf(ipBase, 11+i), 5*time.Hour)}
		pods = append(pods, c.CreatePod(t, p))
	}
	rs.Status = appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: n, AvailableReplicas: n, ObservedGeneration: rs.Generation}
	c.SetObjectStatus(t, rs)
	return pods
}

// c4bStatefulSet creates StatefulSet name governed by Service service; its
// status is the caller's.
func c4bStatefulSet(t *testing.T, c *testcluster.Cluster, ns, name, service string, labels map[string]string, image string, replicas int32, policy appsv1.PodManagementPolicyType, mutate func(*corev1.PodSpec)) *appsv1.StatefulSet {
	t.Helper()
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr(replicas), ServiceName: service, PodManagementPolicy: policy,
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: strings.SplitN(name, "-", 2)[0], Image: image}}}}}}
	if mutate != nil {
		mutate(&sts.Spec.Template.Spec)
	}
	c.Create(t, sts)
	return sts
}

// c4bStatefulPod creates ordinal i of sts at revision (default the
// StatefulSet's name plus a hash), with the labels the controller sets; a
// pod of an older revision runs that revision's image (status's).
func c4bStatefulPod(t *testing.T, c *testcluster.Cluster, sts *appsv1.StatefulSet, i int, status corev1.PodStatus, revision ...string) *corev1.Pod {
	t.Helper()
	name := fmt.Sprintf("%s-%d", sts.Name, i)
	labels := maps.Clone(sts.Spec.Template.Labels)
	labels["statefulset.kubernetes.io/pod-name"] = name
	labels["apps.kubernetes.io/pod-index"] = fmt.Sprint(i)
	labels["controller-revision-hash"] = sts.Name + "-7b9d5c6f8d"
	if len(revision) > 0 {
		labels["controller-revision-hash"] = revision[0]
	}
	spec := *sts.Spec.Template.Spec.DeepCopy()
	spec.Hostname, spec.Subdomain = name, sts.Spec.ServiceName
	if len(status.ContainerStatuses) > 0 && status.ContainerStatuses[0].Image != "" {
		spec.Containers[0].Image = status.ContainerStatuses[0].Image
	}
	return c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: sts.Namespace, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{wlController("StatefulSet", sts)}}, Spec: spec, Status: status})
}

// corpus4bScenarios are new scenarios from real material, to be captured
// and then removed from here.
var corpus4bScenarios = []scenario{}
