package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// A fourth batch of scenarios from real material, on the application side:
// what an investigator needs one step past naming the mechanism (which
// volume a permission error is on and who may write it, which mount hides a
// missing file, where a rejected value came from, why a dependency's own
// pod fails, why the app answers its probe with 4xx) and log shapes whose
// fact is not on the first error line (wrapped decoder errors, tracebacks,
// Caused by chains, cleanup noise, version messages naming both sides).
// Each source cites its material; hits are captured into test/scenarios and
// removed from here, misses stay registered under KUBECTL_TRIAGE_REAL_MISSES.

func init() {
	register(corpus4aScenarios...)
	if os.Getenv("KUBECTL_TRIAGE_REAL_MISSES") != "" {
		register(corpus4aMisses...)
	}
}

// c4aRunAs sets the pod's securityContext: runAsUser, and fsGroup unless 0.
func c4aRunAs(uid, fsGroup int64) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		sc := &corev1.PodSecurityContext{RunAsUser: ptr(uid)}
		if fsGroup != 0 {
			sc.FSGroup = ptr(fsGroup)
		}
		p.Spec.SecurityContext = sc
	}
}

// c4aClaim creates PersistentVolumeClaim claim bound to a scenario-scoped
// CSI volume of driver in class.
func c4aClaim(t *testing.T, c *testcluster.Cluster, ns, claim, class, driver, size string) {
	t.Helper()
	pvName := "pvc-" + claim + "-" + ns
	if len(pvName) > 63 {
		pvName = pvName[:63]
	}
	pvName = strings.TrimRight(pvName, "-")
	ann := map[string]string{"pv.kubernetes.io/provisioned-by": driver, scenarioScoped: "true"}
	c.Create(t, &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName, Annotations: ann},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: class,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: "vol-" + claim}},
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: claim},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	})
	dropAfterScenario(t, c, "PersistentVolume", pvName, ann)
	c.Create(t, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: ns},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, VolumeName: pvName,
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
	})
}

// c4aMount mounts volume vol (source src) at path in container app.
func c4aMount(vol string, src corev1.VolumeSource, path, subPath string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: vol, VolumeSource: src})
		p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: vol, MountPath: path, SubPath: subPath})
	}
}

func c4aClaimSource(claim string) corev1.VolumeSource {
	return corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}
}

func c4aConfigMapSource(name string) corev1.VolumeSource {
	return corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
}

func c4aConfigMap(t *testing.T, c *testcluster.Cluster, ns, name string, data map[string]string) {
	t.Helper()
	c.Create(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: data})
}

func c4aArgs(command []string, args ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Command = command
		p.Spec.Containers[0].Args = args
	}
}

func c4aLabels(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func c4aPodIP(ip string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Status.PodIP = ip }
}

// c4aProbePod creates pod name running image whose current instance runs
// but fails its probe (readiness, or liveness with restarts and the last
// instance killed with lastExit) answered with HTTP status code; log is the
// current instance's log (and the previous one's, for liveness).
func c4aProbePod(t *testing.T, c *testcluster.Cluster, ns, name, image string, liveness bool, probe *corev1.Probe, code int, lastExit int32, log string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	var restarts int32
	var last *corev1.ContainerStateTerminated
	if liveness {
		restarts = 7
		last = &corev1.ContainerStateTerminated{ExitCode: lastExit, Reason: "Error", StartedAt: minutesAgo(4), FinishedAt: minutesAgo(3), ContainerID: "containerd://p0"}
		if lastExit == 0 {
			last.Reason = "Completed"
		}
	}
	p := c.CreatePod(t, simplePod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) {
		p.Namespace = ns
		p.Spec.Containers[0].Image = image
		if liveness {
			p.Spec.Containers[0].LivenessProbe = probe
		} else {
			p.Spec.Containers[0].ReadinessProbe = probe
		}
		st := rcReadyStatus(image, restarts, last)
		st.StartTime = ptr(minutesAgo(35))
		st.Conditions = notReadyConditions()
		st.ContainerStatuses[0].Ready = false
		st.ContainerStatuses[0].State.Running.StartedAt = minutesAgo(2)
		p.Status = st
	}}, mutate...)...))
	kind := "Readiness"
	if liveness {
		kind = "Liveness"
	}
	rcEvent(t, c, p, corev1.EventTypeWarning, "Unhealthy", fmt.Sprintf("%s probe failed: HTTP probe failed with statuscode: %d", kind, code), 96)
	if liveness {
		rcEvent(t, c, p, corev1.EventTypeNormal, "Killing", "Container app failed liveness probe, will be restarted", 7)
		c.SetLogs(ns, name, "app", true, log)
	}
	c.SetLogs(ns, name, "app", false, log)
	return p
}

func c4aHTTPProbe(path string, port int, scheme corev1.URIScheme) *corev1.Probe {
	pr := rcHTTPProbe(path, port)
	pr.HTTPGet.Scheme = scheme
	return pr
}

// c4aService creates Service svc (selector app=svc, port) and its
// EndpointSlice: the pods listed are endpoints, not ready; none listed
// means the selected pods have no IP yet.
func c4aService(t *testing.T, c *testcluster.Cluster, ns, svc string, port int32, notReady map[string]string) {
	t.Helper()
	c4aServiceEndpoints(t, c, ns, svc, port, notReady, false)
}

// c4aServiceEndpoints is c4aService with the endpoints' readiness.
func c4aServiceEndpoints(t *testing.T, c *testcluster.Cluster, ns, svc string, port int32, pods map[string]string, ready bool) {
	t.Helper()
	c.Create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: svc, Namespace: ns},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": svc},
			Ports: []corev1.ServicePort{{Name: "tcp", Port: port, TargetPort: intstr.FromInt32(port), Protocol: corev1.ProtocolTCP}}}})
	no := false
	var eps []discoveryv1.Endpoint
	for pod, ip := range pods {
		eps = append(eps, discoveryv1.Endpoint{Addresses: []string{ip},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &ready, Terminating: &no},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: pod}})
	}
	name := "tcp"
	c.Create(t, &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: svc + "-7xk2p", Namespace: ns, Labels: map[string]string{discoveryv1.LabelServiceName: svc, discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}},
		AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Name: &name, Port: &port}},
		Endpoints: eps,
	})
}

// c4aCrashDep creates the dependency's own pod crash-looping with code
// (reason) and its previous log.
func c4aCrashDep(t *testing.T, c *testcluster.Cluster, ns, name, app, image, ip string, code int32, reason, log string, mutate ...func(*corev1.Pod)) {
	t.Helper()
	p := c.CreatePod(t, simplePod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) {
		p.Namespace = ns
		p.Labels = map[string]string{"app": app}
		p.Spec.Containers[0].Image = image
		p.Status = crashStatus("app", code, reason, 9)
		p.Status.PodIP = ip
		p.Status.ContainerStatuses[0].Image = image
	}}, mutate...)...))
	c.SetLogs(ns, name, "app", true, log)
	c.SetLogs(ns, name, "app", false, "")
	c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 41, First: time.Now().Add(-40 * time.Minute), FieldPath: "spec.containers{app}",
		Message: fmt.Sprintf("Back-off restarting failed container app in pod %s_%s(%s)", name, ns, p.UID)})
}

// c4aRollout is Deployment name mid-rollout: the old ReplicaSet's pod
// serves, the new one's pod (from the changed template) crash-loops with
// code and log. Returns the new pod.
func c4aRollout(t *testing.T, c *testcluster.Cluster, ns, name string, oldTmpl, newTmpl corev1.PodTemplateSpec, code int32, log string) *corev1.Pod {
	t.Helper()
	replicas := int32(1)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{testcluster.AnnotationRevision: "2"}},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}, Template: newTmpl,
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType}},
	}
	c.Create(t, d)
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 2, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 1,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability.", LastUpdateTime: minutesAgo(90), LastTransitionTime: minutesAgo(90)},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated", Message: fmt.Sprintf("ReplicaSet %q is progressing.", name+"-6f8b9c7d54"), LastUpdateTime: minutesAgo(25), LastTransitionTime: minutesAgo(25)}}}
	c.SetObjectStatus(t, d)
	var newPod *corev1.Pod
	for i, rev := range []struct {
		hash string
		tmpl corev1.PodTemplateSpec
		pod  string
	}{{"5d8cb49b5f", oldTmpl, "7mwxq"}, {"6f8b9c7d54", newTmpl, "x2kqz"}} {
		tmpl := *rev.tmpl.DeepCopy()
		tmpl.Labels = map[string]string{"app": name, appsv1.DefaultDeploymentUniqueLabelKey: rev.hash}
		rs := &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-" + rev.hash, Namespace: ns, Labels: tmpl.Labels,
				Annotations:     map[string]string{testcluster.AnnotationRevision: fmt.Sprint(i + 1), testcluster.AnnotationDesiredReplicas: "1", testcluster.AnnotationMaxReplicas: "2"},
				OwnerReferences: []metav1.OwnerReference{wlController("Deployment", d)}},
			Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: tmpl.Labels}, Template: tmpl},
		}
		c.Create(t, rs)
		ready := int32(1 - i)
		rs.Status = appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ReadyReplicas: ready, AvailableReplicas: ready, ObservedGeneration: rs.Generation}
		c.SetObjectStatus(t, rs)
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: rs.Name + "-" + rev.pod, Namespace: ns, Labels: tmpl.Labels,
			OwnerReferences: []metav1.OwnerReference{wlController("ReplicaSet", rs)}}, Spec: tmpl.Spec}
		image := tmpl.Spec.Containers[0].Image
		if i == 0 {
			pod.Status = rcReadyStatus(image, 0, nil)
			pod.Status.ContainerStatuses[0].Name = tmpl.Spec.Containers[0].Name
			c.CreatePod(t, pod)
			continue
		}
		st := crashStatus(tmpl.Spec.Containers[0].Name, code, "Error", 8)
		st.ContainerStatuses[0].Image = image
		st.PodIP = "10.244.0.57"
		pod.Status = st
		newPod = c.CreatePod(t, pod)
		cname := tmpl.Spec.Containers[0].Name
		c.SetLogs(ns, newPod.Name, cname, true, log)
		c.SetLogs(ns, newPod.Name, cname, false, "")
		c.Event(t, testcluster.EventSpec{Object: newPod, Reason: "BackOff", Count: 33, First: time.Now().Add(-24 * time.Minute), FieldPath: "spec.containers{" + cname + "}",
			Message: fmt.Sprintf("Back-off restarting failed container %s in pod %s_%s(%s)", cname, newPod.Name, ns, newPod.UID)})
	}
	return newPod
}

// corpus4aScenarios are new scenarios from real material, to be captured
// and then removed from here (the batch's hits, its healthy controls, are
// captured already).
var corpus4aScenarios = []scenario{}

// corpus4aMisses are scenarios from real material whose expectation the
// builtin investigator does not meet yet; the comment on each says what the
// report says today and which general check or correlation is missing.
var corpus4aMisses = c4aConcat(corpus4aPermission, corpus4aMount, corpus4aConfig, corpus4aVersion, corpus4aDeps, corpus4aProbe, corpus4aMultiline)

func c4aConcat(lists ...[]scenario) []scenario {
	var all []scenario
	for _, l := range lists {
		all = append(all, l...)
	}
	return all
}
