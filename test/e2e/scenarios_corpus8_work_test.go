package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// An eighth batch, area "work": workload-controller and lifecycle failures
// (readiness gates and probes that never pass, a kubelet that refuses to
// start a container, admission that refuses the controllers' pods, a
// DaemonSet that never rolls, a Job whose pod the autoscaler took away, an
// init container and a postStart hook that fail). Each is rebuilt from a
// public thread with its recorded output (cited in source); the expected
// category and culprits were set from the thread's resolution before the
// first run.

func init() {
	if os.Getenv("KUBECTL_TRIAGE_CORPUS8") != "" {
		register(c8workScenarios...)
	}
}

// c8workEvent records an event about obj from component (kubelet events
// on the fake node), repeated count times between first and last ago.
func c8workEvent(t *testing.T, c *testcluster.Cluster, obj runtime.Object, typ, reason, component, fieldPath, msg string, count int32, first, last time.Duration) {
	t.Helper()
	c.Event(t, testcluster.EventSpec{Object: obj, Type: typ, Reason: reason, Component: component, FieldPath: fieldPath, Message: msg, Count: count,
		First: time.Now().Add(-first), Last: time.Now().Add(-last)})
}

// c8workCond is a pod condition that changed ago.
func c8workCond(typ corev1.PodConditionType, ok bool, reason, msg string, ago time.Duration) corev1.PodCondition {
	st := corev1.ConditionFalse
	if ok {
		st = corev1.ConditionTrue
	}
	return corev1.PodCondition{Type: typ, Status: st, Reason: reason, Message: msg, LastTransitionTime: wlAgo(ago)}
}

// c8workRunning is the status of a container running since ago.
func c8workRunning(name, image string, ready bool, restarts int32, ago time.Duration) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, Image: image, ImageID: image + "@sha256:8c", ContainerID: "containerd://" + name + "-8c",
		Ready: ready, Started: ptr(true), RestartCount: restarts, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: wlAgo(ago)}}}
}

// c8workReplicaSet creates revision rev of Deployment d's ReplicaSet (hash
// its pod-template-hash) running image, with one pod per status.
func c8workReplicaSet(t *testing.T, c *testcluster.Cluster, d *appsv1.Deployment, rev int, hash, image string, statuses ...corev1.PodStatus) (*appsv1.ReplicaSet, []*corev1.Pod) {
	t.Helper()
	tmpl := *d.Spec.Template.DeepCopy()
	tmpl.Spec.Containers[0].Image = image
	tmpl.Labels = maps.Clone(tmpl.Labels)
	tmpl.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	n := int32(len(statuses))
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: d.Name + "-" + hash, Namespace: d.Namespace, Labels: maps.Clone(tmpl.Labels),
		Annotations: map[string]string{testcluster.AnnotationRevision: fmt.Sprint(rev), testcluster.AnnotationDesiredReplicas: fmt.Sprint(*d.Spec.Replicas),
			testcluster.AnnotationMaxReplicas: fmt.Sprint(*d.Spec.Replicas + 1)},
		OwnerReferences: []metav1.OwnerReference{wlController("Deployment", d)}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr(n), Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(tmpl.Labels)}, Template: tmpl}}
	c.Create(t, rs)
	var pods []*corev1.Pod
	ready := int32(0)
	for i, st := range statuses {
		p := c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%s", rs.Name, []string{"q7x2m", "h4k9d", "z8w3c"}[i]), Namespace: d.Namespace,
			Labels: maps.Clone(tmpl.Labels), OwnerReferences: []metav1.OwnerReference{wlController("ReplicaSet", rs)}}, Spec: *tmpl.Spec.DeepCopy(), Status: st})
		if c8workPodReady(p) {
			ready++
		}
		pods = append(pods, p)
	}
	rs.Status = appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: ready, AvailableReplicas: ready, ObservedGeneration: rs.Generation}
	c.SetObjectStatus(t, rs)
	return rs, pods
}

func c8workPodReady(p *corev1.Pod) bool {
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// c8workRevision is the ControllerRevision the daemonset controller keeps
// for one revision of ds's template.
func c8workRevision(t *testing.T, c *testcluster.Cluster, ds *appsv1.DaemonSet, hash string, rev int64, tmpl corev1.PodTemplateSpec) {
	t.Helper()
	tmpl.Labels = maps.Clone(tmpl.Labels)
	raw, err := json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{"$patch": "replace", "metadata": tmpl.ObjectMeta, "spec": tmpl.Spec}}})
	if err != nil {
		t.Fatal(err)
	}
	labels := maps.Clone(ds.Spec.Template.Labels)
	labels["controller-revision-hash"] = hash
	c.Create(t, &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: ds.Name + "-" + hash, Namespace: ds.Namespace, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{wlController("DaemonSet", ds)}}, Data: runtime.RawExtension{Raw: raw}, Revision: rev})
}

// c8workScenarios are the batch's scenarios.
var c8workScenarios = []scenario{
	{
		// First round: MISS by the check, right diagnosis: CreateContainerConfigError/NonNumericUser (0.95) names the non-numeric user "nobody" but not the literal "non-numeric user (nobody)" culprit string set beforehand.
		//
		// kuard's image declares USER nobody:nobody; with runAsNonRoot the
		// kubelet cannot tell a user name is not root and refuses to create
		// the container. Fix: a numeric USER in the image, or runAsUser.
		name:     "real-kuard-runasnonroot-image-non-numeric-user",
		source:   "material: https://github.com/kubernetes-up-and-running/kuard/issues/43 (the USER nobody:nobody of the kuard image makes the kubelet refuse to start it under a runAsNonRoot SecurityContext: Warning Failed (x3 over 22s) kubelet Error: container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (pod: \"kuard-798585497b-4lpqf_default(...)\", container: kuard); fix: a numeric UID:GID in the Dockerfile, or runAsUser in the pod spec)",
		category: "CreateContainerConfigError",
		culprit:  []string{"non-numeric user (nobody)"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "gcr.io/kuar-demo/kuard-amd64:blue"
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "kuard"}},
				Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr(true)},
					Containers: []corev1.Container{{Name: "kuard", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
						Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}}}
			st := corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "10.244.0.52", PodIPs: []corev1.PodIP{{IP: "10.244.0.52"}}, StartTime: ptr(wlAgo(25 * time.Second)),
				Conditions: []corev1.PodCondition{
					c8workCond(corev1.PodScheduled, true, "", "", 25*time.Second), c8workCond(corev1.PodInitialized, true, "", "", 25*time.Second),
					c8workCond(corev1.ContainersReady, false, "ContainersNotReady", "containers with unready status: [kuard]", 25*time.Second),
					c8workCond(corev1.PodReady, false, "ContainersNotReady", "containers with unready status: [kuard]", 25*time.Second)},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "kuard", Image: image, Started: ptr(false),
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError"}}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "kuard", Replicas: 1, Template: &tmpl, PodStatus: st})
			p := pods[0]
			msg := fmt.Sprintf("container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (pod: %q, container: kuard)", fmt.Sprintf("%s_%s(%s)", p.Name, ns, p.UID))
			p.Status.ContainerStatuses[0].State.Waiting.Message = msg
			p = c.SetStatus(t, p)
			fp := "spec.containers{kuard}"
			c8workEvent(t, c, p, corev1.EventTypeNormal, "Scheduled", "default-scheduler", "", fmt.Sprintf("Successfully assigned %s/%s to %s", ns, p.Name, c.NodeName), 1, 25*time.Second, 25*time.Second)
			c8workEvent(t, c, p, corev1.EventTypeNormal, "Pulled", "kubelet", fp, fmt.Sprintf("Container image %q already present on machine", image), 3, 22*time.Second, 7*time.Second)
			c8workEvent(t, c, p, corev1.EventTypeWarning, "Failed", "kubelet", fp, "Error: "+msg, 3, 22*time.Second, 7*time.Second)
			return []string{"deployment/kuard"}
		},
	},
	{
		// First round: MISS. Probe/Readiness/HTTPStatus (0.85) blames readinessProbe.httpGet.path /readyz for the 400; the log's "client sent an HTTP request to an HTTPS server" is not read.
		//
		// The adx-mon ingestor serves TLS on 9090; its readiness probe has
		// no scheme, so the kubelet speaks plain HTTP to it, Go's TLS
		// server answers 400 and logs the handshake error, and the pod is
		// never Ready. Fix: scheme: HTTPS.
		name:     "real-adx-mon-ingestor-readiness-probe-http-on-tls-port",
		source:   "material: https://github.com/Azure/adx-mon/pull/651 (fix(ingestor): Readiness probe missing https scheme: ingestor pods do not become ready because readiness probe fails with the error: 2025/03/28 13:08:04 http: TLS handshake error from 10.224.0.6:37448: client sent an HTTP request to an HTTPS server; the readiness probe defaults to http scheme and the server is configured for tls; fixed by adding scheme: HTTPS); StatefulSet, Service and probe as in build/k8s/ingestor.yaml (httpGet /readyz port 9090, periodSeconds 5); the kubelet's HTTP probe of a Go TLS listener gets its 400 reply",
		category: "Probe/Readiness",
		culprit:  []string{"HTTPS", "scheme"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "ghcr.io/azure/adx-mon/ingestor:latest"
			labels := map[string]string{"app": "ingestor"}
			c4bService(t, c, ns, "ingestor", labels, []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromInt32(9090), Protocol: corev1.ProtocolTCP}})
			sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "ingestor", Namespace: ns},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(1)), ServiceName: "adx-mon", Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
					UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels),
						Annotations: map[string]string{"adx-mon/scrape": "true", "adx-mon/port": "9091", "adx-mon/path": "/metrics", "adx-mon/log-destination": "Logs:Ingestor", "adx-mon/log-parsers": "json"}},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "ingestor", Image: image, Command: []string{"/ingestor"},
							Args: []string{"--storage-dir=/mnt/data", "--max-segment-age=5s", "--max-disk-usage=21474836480", "--max-transfer-size=10485760", "--max-connections=1000",
								"--insecure-skip-verify", "--lift-label=host", "--lift-label=cluster", "--metrics-kusto-endpoints=Metrics=https://adxmon.westus2.kusto.windows.net", "--logs-kusto-endpoints=Logs=https://adxmon.westus2.kusto.windows.net"},
							Ports: []corev1.ContainerPort{{Name: "ingestor", ContainerPort: 9090, Protocol: corev1.ProtocolTCP}, {Name: "metrics", ContainerPort: 9091, Protocol: corev1.ProtocolTCP}},
							Env:   []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "INFO"}, {Name: "GODEBUG", Value: "http2client=0"}},
							ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(9090), Scheme: corev1.URISchemeHTTP}},
								InitialDelaySeconds: 10, PeriodSeconds: 5, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}}}}}}}
			c.Create(t, sts)
			sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: 1, CurrentReplicas: 1, UpdatedReplicas: 1, AvailableReplicas: 0, ReadyReplicas: 0,
				CurrentRevision: "ingestor-6f8b7d9c5d", UpdateRevision: "ingestor-6f8b7d9c5d", CollisionCount: ptr(int32(0))}
			c.SetObjectStatus(t, sts)
			started := 38 * time.Minute
			st := corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.3.17", PodIPs: []corev1.PodIP{{IP: "10.244.3.17"}}, StartTime: ptr(wlAgo(started)),
				Conditions: []corev1.PodCondition{c8workCond(corev1.PodScheduled, true, "", "", started), c8workCond(corev1.PodInitialized, true, "", "", started),
					c8workCond(corev1.ContainersReady, false, "ContainersNotReady", "containers with unready status: [ingestor]", started),
					c8workCond(corev1.PodReady, false, "ContainersNotReady", "containers with unready status: [ingestor]", started)},
				ContainerStatuses: []corev1.ContainerStatus{c8workRunning("ingestor", image, false, 0, started)}}
			p := c4bStatefulPod(t, c, sts, 0, st, "ingestor-6f8b7d9c5d")
			c4bSlice(t, c, ns, "ingestor", c4bSlicePort("", 9090), p)
			c.SetLogs(ns, p.Name, "ingestor", false, c4bStamps(60, 5*time.Second, "2006/01/02 15:04:05",
				"%s http: TLS handshake error from 127.0.0.1:%d: client sent an HTTP request to an HTTPS server\n", 37448))
			c8workEvent(t, c, p, corev1.EventTypeWarning, "Unhealthy", "kubelet", "spec.containers{ingestor}", "Readiness probe failed: HTTP probe failed with statuscode: 400", 455, started-10*time.Second, 3*time.Second)
			return []string{"statefulset/ingestor"}
		},
	},
	{
		// First round: MISS. Rollout/Stuck/NotReady (0.75) says the new pod's readiness probe fails; its containers are Ready and its Ready condition is ReadinessGatesNotReady.
		//
		// The AWS Load Balancer Controller injects a readiness gate per
		// target group; after the ingress group changed with the rollout,
		// the new pod was never registered in the new target group, so its
		// gate condition never appears and the rollout stalls. Fix: delete
		// the stuck pod (a controller bug, fixed later).
		name:     "real-aws-lbc-readiness-gate-target-group-never-registered",
		source:   "material: https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/2393 (changing the ingress group and doing a deployment rollout at the same time: new pods are never registered on the new target group, the readiness gate on the pod never passes (READINESS GATES 0/1), stalling the rollout; the only fix is to delete the unready pod; namespace labelled elbv2.k8s.aws/pod-readiness-gate-inject: enabled, chart upgraded from group=internal tag=stable to group=external tag=latest); the pod's Ready condition as in https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/1205 (reason ReadinessGatesNotReady, message corresponding condition of pod readiness gate \"target-health...\" does not exist.)",
		category: "Rollout",
		culprit:  []string{"target-health.elbv2.k8s.aws/k8s-"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			ctx := context.Background()
			nso, err := c.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if nso.Labels == nil {
				nso.Labels = map[string]string{}
			}
			nso.Labels["elbv2.k8s.aws/pod-readiness-gate-inject"] = "enabled"
			if _, err := c.Client.CoreV1().Namespaces().Update(ctx, nso, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			labels := map[string]string{"app.kubernetes.io/name": "nginx-chart", "app.kubernetes.io/instance": "nginx-chart"}
			gate := fmt.Sprintf("target-health.elbv2.k8s.aws/k8s-%s-nginxcha-3c2b1d9e8f", strings.ReplaceAll(ns, "-", "")[:7])
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "nginx-chart", Namespace: ns, Labels: maps.Clone(labels),
				Annotations: map[string]string{testcluster.AnnotationRevision: "2", "meta.helm.sh/release-name": "nginx-chart"}},
				Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(2)), Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest",
							Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
							ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("http")}}, PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}}}}}}}
			c.Create(t, d)
			oldAge, newAge := 6*time.Hour, 24*time.Minute
			oldSt := func(ip string) corev1.PodStatus { return c4bReady("nginx", "nginx:stable", ip, oldAge) }
			_, oldPods := c8workReplicaSet(t, c, d, 1, "7d5f9c8b64", "nginx:stable", oldSt("10.0.3.41"), oldSt("10.0.5.118"))
			// The injected gate is in the new pods' spec (the webhook adds it
			// at creation); the gate's condition never appears.
			newSt := corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.0.4.77", PodIPs: []corev1.PodIP{{IP: "10.0.4.77"}}, StartTime: ptr(wlAgo(newAge)),
				Conditions: []corev1.PodCondition{c8workCond(corev1.PodScheduled, true, "", "", newAge), c8workCond(corev1.PodInitialized, true, "", "", newAge),
					c8workCond(corev1.ContainersReady, true, "", "", newAge-4*time.Second),
					c8workCond(corev1.PodReady, false, "ReadinessGatesNotReady", fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", gate), newAge)},
				ContainerStatuses: []corev1.ContainerStatus{c8workRunning("nginx", "nginx:latest", true, 0, newAge-2*time.Second)}}
			d.Spec.Template.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: corev1.PodConditionType(gate)}}
			newRS, newPods := c8workReplicaSet(t, c, d, 2, "5b8c6f7d9", "nginx:latest", newSt)
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 3, UpdatedReplicas: 1, ReadyReplicas: 2, AvailableReplicas: 2, UnavailableReplicas: 1,
				Conditions: []appsv1.DeploymentCondition{
					{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability.", LastUpdateTime: wlAgo(oldAge), LastTransitionTime: wlAgo(oldAge)},
					{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: fmt.Sprintf("ReplicaSet %q has timed out progressing.", newRS.Name), LastUpdateTime: wlAgo(14 * time.Minute), LastTransitionTime: wlAgo(14 * time.Minute)}}}
			c.SetObjectStatus(t, d)
			svc := c4bService(t, c, ns, "nginx-chart", labels, []corev1.ServicePort{c4bPort("http", 80, intstr.FromString("http"))})
			c4bSlice(t, c, ns, "nginx-chart", c4bSlicePort("http", 80), append(oldPods, newPods...)...)
			class := "alb"
			ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "nginx-chart", Namespace: ns, Labels: maps.Clone(labels),
				Annotations: map[string]string{"alb.ingress.kubernetes.io/group.name": "external", "alb.ingress.kubernetes.io/scheme": "internet-facing", "alb.ingress.kubernetes.io/target-type": "ip"}},
				Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: ptr(networkingv1.PathTypePrefix), Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
						Name: svc.Name, Port: networkingv1.ServiceBackendPort{Name: "http"}}}}}}}}}}}
			c.Create(t, ing)
			c8workEvent(t, c, ing, corev1.EventTypeNormal, "SuccessfullyReconciled", "ingress", "", "Successfully reconciled", 2, newAge, newAge-5*time.Second)
			c8workEvent(t, c, d, corev1.EventTypeNormal, "ScalingReplicaSet", "deployment-controller", "", fmt.Sprintf("Scaled up replica set %s from 0 to 1", newRS.Name), 1, newAge, newAge)
			p := newPods[0]
			c8workEvent(t, c, p, corev1.EventTypeNormal, "Scheduled", "default-scheduler", "", fmt.Sprintf("Successfully assigned %s/%s to %s", ns, p.Name, c.NodeName), 1, newAge, newAge)
			c8workEvent(t, c, p, corev1.EventTypeNormal, "Started", "kubelet", "spec.containers{nginx}", "Started container nginx", 1, newAge-2*time.Second, newAge-2*time.Second)
			c.SetLogs(ns, p.Name, "nginx", false, c5Lines(
				"/docker-entrypoint.sh: Configuration complete; ready for start up",
				"10.0.4.1 - - [02/Dec/2021:10:14:07 +0000] \"GET / HTTP/1.1\" 200 615 \"-\" \"kube-probe/1.21+\" \"-\""))
			return []string{"deployment/nginx-chart"}
		},
	},
	{
		// First round: hit. FailedCreate/Forbidden (0.80), the SCC refusal quoted whole.
		//
		// On OpenShift the restricted-v2 SCC assigns each namespace a UID
		// range; the operator's database StatefulSet hard-codes fsGroup and
		// runAsUser 999, so admission refuses its pod. Fix (pulp-operator
		// #1320): leave the security context unset on OpenShift.
		name:     "real-pulp-operator-database-scc-refuses-fsgroup-999",
		source:   "material: https://github.com/pulp/pulp-operator/issues/1319 (database pods failing to be deployed in OCP: Warning FailedCreate statefulset/ocp-example-database create Pod ocp-example-database-0 in StatefulSet ocp-example-database failed error: pods \"ocp-example-database-0\" is forbidden: unable to validate against any security context constraint: [provider \"anyuid\": Forbidden: not usable by user or serviceaccount, provider restricted-v2: .spec.securityContext.fsGroup: Invalid value: []int64{999}: 999 is not an allowed group, provider restricted-v2: .containers[0].runAsUser: Invalid value: 999: must be in the ranges: [1000680000, 1000689999], ...]; fixed by https://github.com/pulp/pulp-operator/pull/1320, which sets runAsUser/fsGroup 999 only off OpenShift)",
		category: "FailedCreate",
		culprit:  []string{"security context constraint", "999"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			labels := map[string]string{"app.kubernetes.io/name": "postgres", "app.kubernetes.io/instance": "postgres-ocp-example", "app.kubernetes.io/component": "database",
				"app.kubernetes.io/part-of": "pulp", "app.kubernetes.io/managed-by": "pulp-operator", "pulp_cr": "ocp-example"}
			c4bService(t, c, ns, "ocp-example-database-svc", labels, []corev1.ServicePort{c4bPort("postgres", 5432, intstr.FromInt32(5432))}, func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone })
			sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "ocp-example-database", Namespace: ns, Labels: maps.Clone(labels)},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(1)), ServiceName: "ocp-example-database-svc", Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
						Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptr(int64(999)), RunAsGroup: ptr(int64(999)), FSGroup: ptr(int64(999))},
							Containers: []corev1.Container{{Name: "postgres", Image: "docker.io/library/postgres:13",
								Env: []corev1.EnvVar{{Name: "POSTGRESQL_DATABASE", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "ocp-example-postgres-configuration"}, Key: "database"}}},
									{Name: "PGDATA", Value: "/var/lib/postgresql/data/pgdata"}},
								Ports: []corev1.ContainerPort{{Name: "postgres", ContainerPort: 5432, Protocol: corev1.ProtocolTCP}}}}}}}}
			c.Create(t, sts)
			sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: 0, CurrentRevision: "ocp-example-database-5c9f8d7b6", UpdateRevision: "ocp-example-database-5c9f8d7b6", CollisionCount: ptr(int32(0))}
			c.SetObjectStatus(t, sts)
			c.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "ocp-example-postgres-configuration", Namespace: ns},
				StringData: map[string]string{"database": "pulp", "username": "pulp", "password": "tP3xq8Zb1RkLw", "host": "ocp-example-database-svc", "port": "5432", "type": "managed"}})
			msg := `create Pod ocp-example-database-0 in StatefulSet ocp-example-database failed error: pods "ocp-example-database-0" is forbidden: unable to validate against any security context constraint: [provider "anyuid": Forbidden: not usable by user or serviceaccount, provider restricted-v2: .spec.securityContext.fsGroup: Invalid value: []int64{999}: 999 is not an allowed group, provider restricted-v2: .containers[0].runAsUser: Invalid value: 999: must be in the ranges: [1000680000, 1000689999], provider "restricted": Forbidden: not usable by user or serviceaccount, provider "nonroot-v2": Forbidden: not usable by user or serviceaccount, provider "nonroot": Forbidden: not usable by user or serviceaccount, provider "hostmount-anyuid": Forbidden: not usable by user or serviceaccount, provider "machine-api-termination-handler": Forbidden: not usable by user or serviceaccount, provider "hostnetwork-v2": Forbidden: not usable by user or serviceaccount, provider "hostnetwork": Forbidden: not usable by user or serviceaccount, provider "hostaccess": Forbidden: not usable by user or serviceaccount, provider "node-exporter": Forbidden: not usable by user or serviceaccount, provider "privileged": Forbidden: not usable by user or serviceaccount]`
			c8workEvent(t, c, sts, corev1.EventTypeWarning, "FailedCreate", "statefulset-controller", "", msg, 19, 31*time.Minute, 4*time.Minute+36*time.Second)
			return []string{"statefulset/ocp-example-database"}
		},
	},
	{
		// First round: MISS. InitContainer/CrashLoop/Exit2/Panic (0.90) takes the last line "panic: exit status 2"; the iptables-restore error above it is not named.
		//
		// istio-init writes the nat table's REDIRECT rules; the RHEL 8 /
		// AlmaLinux nodes have no iptable_nat (and related) kernel modules
		// loaded, so iptables-restore cannot initialize table 'nat' and the
		// init container panics; the pod stays Init:CrashLoopBackOff. Fix:
		// modprobe br_netfilter nf_nat xt_REDIRECT xt_owner iptable_nat
		// iptable_mangle iptable_filter on every node.
		name:     "real-istio-init-iptables-nat-table-kernel-module-missing",
		source:   "material: https://github.com/istio/istio/issues/28897 (every sidecar-injected pod fails to init on RedHat 8 nodes: kubectl logs webapp-859f59c86d-q6sfl istio-init: iptables-restore --noflush /tmp/iptables-rules-1605323206851298933.txt962677351 / iptables-restore v1.6.1: iptables-restore: unable to initialize table 'nat' / Error occurred at line: 1 / Try `iptables-restore -h' or 'iptables-restore --help' for more information. / iptables-save / panic: exit status 2; Kubernetes v1.19.4); the cause and fix (load the netfilter modules on every node: modprobe br_netfilter ; modprobe nf_nat ; modprobe xt_REDIRECT ; modprobe xt_owner; modprobe iptable_nat; modprobe iptable_mangle; modprobe iptable_filter) in https://github.com/istio/istio/issues/23009 and https://github.com/istio/istio/issues/44118 (Back-off restarting failed container istio-init)",
		category: "InitContainer",
		culprit:  []string{"table 'nat'"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			proxy, app := "docker.io/istio/proxyv2:1.8.0", "registry.example.com/shop/webapp:1.4.2"
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "webapp", "security.istio.io/tlsMode": "istio", "service.istio.io/canonical-name": "webapp"},
				Annotations: map[string]string{"sidecar.istio.io/status": `{"version":"e2cb9d4837cda9584fd272bfa1f348525bcaacfadb7e9b9efbd21a3bb44ad7a1","initContainers":["istio-init"],"containers":["istio-proxy"],"volumes":["istio-envoy","istio-data","istio-podinfo","istiod-ca-cert"],"imagePullSecrets":null}`}},
				Spec: corev1.PodSpec{
					InitContainers: []corev1.Container{{Name: "istio-init", Image: proxy,
						Args: []string{"istio-iptables", "-p", "15001", "-z", "15006", "-u", "1337", "-m", "REDIRECT", "-i", "*", "-x", "", "-b", "*", "-d", "15090,15021,15020"},
						SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN", "NET_RAW"}, Drop: []corev1.Capability{"ALL"}},
							RunAsUser: ptr(int64(0)), RunAsGroup: ptr(int64(0)), RunAsNonRoot: ptr(false)}}},
					Containers: []corev1.Container{
						{Name: "webapp", Image: app, Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}},
						{Name: "istio-proxy", Image: proxy, Args: []string{"proxy", "sidecar", "--domain", "$(POD_NAMESPACE).svc.cluster.local", "--serviceCluster", "webapp.$(POD_NAMESPACE)"},
							Ports: []corev1.ContainerPort{{Name: "http-envoy-prom", ContainerPort: 15090, Protocol: corev1.ProtocolTCP}}}}}}
			started := 47 * time.Minute
			waiting := func(name, image string) corev1.ContainerStatus {
				return corev1.ContainerStatus{Name: name, Image: image, Started: ptr(false), State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}
			}
			st := corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "10.233.64.23", PodIPs: []corev1.PodIP{{IP: "10.233.64.23"}}, StartTime: ptr(wlAgo(started)),
				Conditions: []corev1.PodCondition{c8workCond(corev1.PodScheduled, true, "", "", started),
					c8workCond(corev1.PodInitialized, false, "ContainersNotInitialized", "containers with incomplete status: [istio-init]", started),
					c8workCond(corev1.ContainersReady, false, "ContainersNotReady", "containers with unready status: [webapp istio-proxy]", started),
					c8workCond(corev1.PodReady, false, "ContainersNotReady", "containers with unready status: [webapp istio-proxy]", started)},
				InitContainerStatuses: []corev1.ContainerStatus{{Name: "istio-init", Image: proxy, ImageID: "docker.io/istio/proxyv2@sha256:e6a9b7d3", ContainerID: "containerd://ii14", RestartCount: 14, Started: ptr(false),
					State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container=istio-init"}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error", StartedAt: wlAgo(3 * time.Minute), FinishedAt: wlAgo(3 * time.Minute), ContainerID: "containerd://ii14"}}}},
				ContainerStatuses: []corev1.ContainerStatus{waiting("webapp", app), waiting("istio-proxy", proxy)}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "webapp", Labels: map[string]string{"app": "webapp"}, Replicas: 1, Template: &tmpl, PodStatus: st})
			p := pods[0]
			p.Status.InitContainerStatuses[0].State.Waiting.Message = fmt.Sprintf("back-off 5m0s restarting failed container=istio-init pod=%s_%s(%s)", p.Name, ns, p.UID)
			p = c.SetStatus(t, p)
			logs := c5Lines("Environment:", "------------", "ENVOY_PORT=", "INBOUND_CAPTURE_PORT=", "ISTIO_INBOUND_INTERCEPTION_MODE=", "ISTIO_INBOUND_TPROXY_MARK=",
				"ISTIO_INBOUND_TPROXY_ROUTE_TABLE=", "ISTIO_INBOUND_PORTS=", "ISTIO_OUTBOUND_PORTS=", "ISTIO_LOCAL_EXCLUDE_PORTS=", "ISTIO_SERVICE_CIDR=", "ISTIO_SERVICE_EXCLUDE_CIDR=", "",
				"Variables:", "----------", "PROXY_PORT=15001", "PROXY_INBOUND_CAPTURE_PORT=15006", "PROXY_TUNNEL_PORT=15008", "PROXY_UID=1337", "PROXY_GID=1337",
				"INBOUND_INTERCEPTION_MODE=REDIRECT", "INBOUND_TPROXY_MARK=1337", "INBOUND_TPROXY_ROUTE_TABLE=133", "INBOUND_PORTS_INCLUDE=*", "INBOUND_PORTS_EXCLUDE=15090,15021,15020",
				"OUTBOUND_IP_RANGES_INCLUDE=*", "OUTBOUND_IP_RANGES_EXCLUDE=", "OUTBOUND_PORTS_EXCLUDE=", "KUBEVIRT_INTERFACES=", "ENABLE_INBOUND_IPV6=false", "DNS_CAPTURE=false", "",
				"Writing following contents to rules file:  /tmp/iptables-rules-1605323206851298933.txt962677351", "* nat", "-N ISTIO_INBOUND", "-N ISTIO_REDIRECT", "-N ISTIO_IN_REDIRECT", "-N ISTIO_OUTPUT",
				"-A ISTIO_INBOUND -p tcp --dport 15008 -j RETURN", "-A ISTIO_REDIRECT -p tcp -j REDIRECT --to-ports 15001", "-A ISTIO_IN_REDIRECT -p tcp -j REDIRECT --to-ports 15006",
				"-A PREROUTING -p tcp -j ISTIO_INBOUND", "-A ISTIO_INBOUND -p tcp --dport 22 -j RETURN", "-A ISTIO_INBOUND -p tcp --dport 15090 -j RETURN", "-A ISTIO_INBOUND -p tcp --dport 15021 -j RETURN",
				"-A ISTIO_INBOUND -p tcp --dport 15020 -j RETURN", "-A ISTIO_INBOUND -p tcp -j ISTIO_IN_REDIRECT", "-A OUTPUT -p tcp -j ISTIO_OUTPUT", "-A ISTIO_OUTPUT -o lo -s 127.0.0.6/32 -j RETURN",
				"-A ISTIO_OUTPUT -m owner --uid-owner 1337 -j RETURN", "-A ISTIO_OUTPUT -d 127.0.0.1/32 -j RETURN", "-A ISTIO_OUTPUT -j ISTIO_REDIRECT", "COMMIT",
				"iptables-restore --noflush /tmp/iptables-rules-1605323206851298933.txt962677351",
				"iptables-restore v1.6.1: iptables-restore: unable to initialize table 'nat'", "", "Error occurred at line: 1",
				"Try `iptables-restore -h' or 'iptables-restore --help' for more information.", "iptables-save ", "panic: exit status 2")
			c.SetLogs(ns, p.Name, "istio-init", true, logs)
			c.SetLogs(ns, p.Name, "istio-init", false, "")
			fp := "spec.initContainers{istio-init}"
			c8workEvent(t, c, p, corev1.EventTypeNormal, "Pulled", "kubelet", fp, fmt.Sprintf("Container image %q already present on machine", proxy), 15, started, 3*time.Minute)
			c8workEvent(t, c, p, corev1.EventTypeNormal, "Created", "kubelet", fp, "Created container istio-init", 15, started, 3*time.Minute)
			c8workEvent(t, c, p, corev1.EventTypeNormal, "Started", "kubelet", fp, "Started container istio-init", 15, started, 3*time.Minute)
			c8workEvent(t, c, p, corev1.EventTypeWarning, "BackOff", "kubelet", fp, fmt.Sprintf("Back-off restarting failed container istio-init in pod %s_%s(%s)", p.Name, ns, p.UID), 211, started-time.Minute, 20*time.Second)
			return []string{"deployment/webapp"}
		},
	},
}
