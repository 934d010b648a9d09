package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The ninth batch's second half (see scenarios_corpus9_kube_test.go for
// the batch and its first-round record).

// c9kubeFailedCreate is Deployment name whose ReplicaSet name-hash cannot
// create any pod since ago: the replicaset controller's FailedCreate event
// and ReplicaFailure conditions carry msg.
func c9kubeFailedCreate(t *testing.T, c *testcluster.Cluster, ns, name, hash string, replicas int32, tmpl corev1.PodTemplateSpec, msg string, ago time.Duration) {
	t.Helper()
	rsName := name + "-" + hash
	failure := appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: msg,
		LastUpdateTime: wlAgo(ago), LastTransitionTime: wlAgo(ago)}
	st := c8kubeUnavailable(rsName, replicas, ago, failure)
	st.Replicas, st.UpdatedReplicas, st.UnavailableReplicas = 0, 0, replicas
	dep, rs := c8kubeDeployment(t, c, ns, name, hash, replicas, tmpl, appsv1.ReplicaSetStatus{Conditions: []appsv1.ReplicaSetCondition{
		{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: msg, LastTransitionTime: wlAgo(ago)}}}, st)
	c8kubeEvent(t, c, rs, "", corev1.EventTypeWarning, "FailedCreate", "replicaset-controller", "", "Error creating: "+msg, 19, ago, 2*time.Minute)
	c8kubeEvent(t, c, dep, "", corev1.EventTypeNormal, "ScalingReplicaSet", "deployment-controller", "", fmt.Sprintf("Scaled up replica set %s to %d", rsName, replicas), 1, ago, ago)
}

var c9kubeScenarios2 = []scenario{
	{
		// First round: MISS. Today: HPA/MetricsAPIUnavailable (0.90) "the resource metrics API (metrics.k8s.io) is not served — metrics-server is missing or down"; the running, unready metrics-server pod and its log are not read.
		// Missing: following metrics.k8s.io to the metrics-server pod (Readiness probe failed: HTTP probe failed with statuscode: 500) and its log: x509: cannot validate certificate for 192.168.1.12 because it doesn't contain any IP SANs, i.e. the kubelets' serving certificates (fix: signed kubelet serving certs or --kubelet-insecure-tls).
		name:     "real-hpa-unknown-metrics-server-kubelet-cert-no-ip-sans",
		source:   "material: https://github.com/kubernetes-sigs/metrics-server/issues/767 (metrics-server pod not ready, Readiness probe failed: HTTP probe failed with statuscode: 500; kubectl logs -n kube-system metrics-server: E0518 07:12:42.090952 1 server.go:132] unable to fully scrape metrics: [unable to fully scrape metrics from node XXX-02: unable to fetch metrics from node XXX-02: Get \"https://IP-02:10250/stats/summary?only_cpu_and_memory=true\": x509: cannot validate certificate for IP-02 because it doesn't contain any IP SANs, ...]) with the HPA side from https://github.com/kubernetes-retired/kube-aws/issues/549 (TARGETS <unknown>/50% because metrics-server is not working; kubectl logs -l k8s-app=metrics-server shows the scrape failures; fixed by giving metrics-server --kubelet-insecure-tls and --kubelet-preferred-address-types=InternalIP); the kubelets' self-signed serving certificates carry no IP SANs, so metrics-server cannot verify them when it dials the nodes' InternalIPs (https://github.com/kubernetes-sigs/metrics-server/issues/196: sign the kubelet serving certs for the right names, or --kubelet-insecure-tls); the HPA is the php-apache walkthrough's, node names and IPs stand for the redacted ones",
		category: "HPA",
		culprit:  []string{"metrics-server", "IP SANs"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			ips := map[string]string{"k8s-master": "192.168.1.10", "k8s-node-01": "192.168.1.11", "k8s-node-02": "192.168.1.12"}
			for n, ip := range ips {
				ip := ip
				c4bNode(t, c, n, func(node *corev1.Node) {
					node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeHostName, Address: node.Name}}
				})
			}
			image := "k8s.gcr.io/metrics-server/metrics-server:v0.4.4"
			mlabels := map[string]string{"k8s-app": "metrics-server"}
			mtmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: mlabels}, Spec: corev1.PodSpec{ServiceAccountName: "metrics-server", PriorityClassName: "",
				Containers: []corev1.Container{{Name: "metrics-server", Image: image,
					Args:  []string{"--cert-dir=/tmp", "--secure-port=4443", "--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname", "--kubelet-use-node-status-port"},
					Ports: []corev1.ContainerPort{{Name: "https", ContainerPort: 4443, Protocol: corev1.ProtocolTCP}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("https"), Scheme: corev1.URISchemeHTTPS}},
						PeriodSeconds: 10, FailureThreshold: 3},
					LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/livez", Port: intstr.FromString("https"), Scheme: corev1.URISchemeHTTPS}},
						PeriodSeconds: 10, FailureThreshold: 3}}}}}
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "metrics-server", Namespace: ns}})
			_, mrs := c8kubeDeployment(t, c, ns, "metrics-server", "5b974f8c7f", 1, mtmpl, appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1}, c8kubeUnavailable("metrics-server-5b974f8c7f", 1, 5*time.Hour))
			mst := c8appNotReady("metrics-server", image, "10.244.2.9", 5*time.Hour)
			mp := c8kubePod(t, c, mrs, "vq7lx", "", mst)
			c8kubeEvent(t, c, mp, "", corev1.EventTypeWarning, "Unhealthy", "kubelet", "spec.containers{metrics-server}", "Readiness probe failed: HTTP probe failed with statuscode: 500", 1798, 5*time.Hour, 8*time.Second)
			scrape := func(node string) string {
				return fmt.Sprintf("unable to fully scrape metrics from node %s: unable to fetch metrics from node %s: Get \"https://%s:10250/stats/summary?only_cpu_and_memory=true\": x509: cannot validate certificate for %s because it doesn't contain any IP SANs",
					node, node, ips[node], ips[node])
			}
			line := "Eserver.go:132] unable to fully scrape metrics: [" + strings.Join([]string{scrape("k8s-node-02"), scrape("k8s-node-01"), scrape("k8s-master")}, ", ") + "]"
			log := c8kubeKlog(5*time.Hour, line,
				"Irequestheader_controller.go:169] Starting RequestHeaderAuthRequestController",
				"Ishared_informer.go:240] Waiting for caches to sync for RequestHeaderAuthRequestController",
				"Iconfigmap_cafile_content.go:202] Starting client-ca::kube-system::extension-apiserver-authentication::requestheader-client-ca-file",
				"Isecure_serving.go:197] Serving securely on [::]:4443")
			for _, m := range []int{4, 3, 2, 1} {
				log += c8kubeKlog(time.Duration(m)*time.Minute, line)
			}
			c.SetLogs(ns, mp.Name, "metrics-server", false, log)
			c4bService(t, c, ns, "metrics-server", mlabels, []corev1.ServicePort{c4bPort("https", 443, intstr.FromString("https"))}, func(s *corev1.Service) { s.Labels = mlabels })
			c4bSlice(t, c, ns, "metrics-server", c4bSlicePort("https", 4443), mp)
			aimage := "registry.k8s.io/hpa-example"
			atmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"run": "php-apache"}}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "php-apache", Image: aimage, Ports: []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")}, Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}}}
			_, ars := c8kubeDeployment(t, c, ns, "php-apache", "7d665c4ddf", 1, atmpl, c9kubeReadyRS(1, 1), c9kubeAvailable("php-apache-7d665c4ddf", 1, 4*time.Hour))
			c8kubePod(t, c, ars, "8z6sp", "", wlReadyStatus("php-apache", aimage, 4*time.Hour))
			unable := "unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)"
			h := c4bHPA(t, c, ns, "php-apache", "php-apache", 1, 10, c4bCPU(50), autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 1, DesiredReplicas: 1,
				Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
					c4bHPACond(autoscalingv2.AbleToScale, true, "SucceededGetScale", "the HPA controller was able to get the target's current scale", 4*time.Hour),
					c4bHPACond(autoscalingv2.ScalingActive, false, "FailedGetResourceMetric", "the HPA was unable to compute the replica count: failed to get cpu utilization: "+unable, 4*time.Hour)}})
			c8kubeEvent(t, c, h, "", corev1.EventTypeWarning, "FailedGetResourceMetric", "horizontal-pod-autoscaler", "", "failed to get cpu utilization: "+unable, 960, 4*time.Hour, 15*time.Second)
			c8kubeEvent(t, c, h, "", corev1.EventTypeWarning, "FailedComputeMetricsReplicas", "horizontal-pod-autoscaler", "",
				"invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: "+unable, 960, 4*time.Hour, 15*time.Second)
			return []string{"hpa/php-apache"}
		},
	},
	{
		// First round: MISS. Today: Node/Cordoned (0.95) "node compute-1 is cordoned ... no new pod is scheduled on it", with coredns-58cb6bf589-fthdc listed as still running; the PodDisruptionBudget is not read.
		// Missing: for a cordoned node whose pods are not evicted, checking the PodDisruptionBudgets over them (coredns: disruptionsAllowed 0, currentHealthy 1 of desiredHealthy 1) and why: the other replica coredns-58cb6bf589-h58w6 is unready; fix it (or delete it) so the eviction may proceed.
		name:     "real-node-drain-blocked-pdb-coredns-other-replica-unready",
		source:   "material: https://github.com/berops/claudie/issues/1508 (deleting a node from a nodepool first drains it, and the drain hangs indefinitely: the eviction would violate the pod's disruption budget (kubectl drain: Cannot evict pod as it would violate the pod's disruption budget); coredns-58cb6bf589-fthdc 1/1 Running on the drained node while coredns-58cb6bf589-h58w6 is 0/1 Running, so the coredns PodDisruptionBudget has no disruption left; deleting the unhealthy pod unstuck the eviction (a healthy replacement came up and the PDB allowed the eviction)); the PDB (minAvailable 1 over k8s-app=kube-dns), node names and the readiness failure text are not in the thread",
		category: "Node/Cordoned",
		culprit:  []string{"coredns-58cb6bf589-h58w6", "disruption"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			drained, other := "compute-1", "compute-2"
			n := c8kubeNode(t, c, drained, c8kubeNodeInfo("Ubuntu 22.04.4 LTS", "5.15.0-116-generic", "containerd://1.7.18", "v1.29.6"), c4bTaint("node.kubernetes.io/unschedulable", "", corev1.TaintEffectNoSchedule),
				func(node *corev1.Node) { node.Spec.Unschedulable = true })
			c8kubeNode(t, c, other, c8kubeNodeInfo("Ubuntu 22.04.4 LTS", "5.15.0-116-generic", "containerd://1.7.18", "v1.29.6"))
			c8kubeEvent(t, c, n, drained, corev1.EventTypeNormal, "NodeNotSchedulable", "kubelet", "", "Node compute-1 status is now: NodeNotSchedulable", 1, 25*time.Minute, 25*time.Minute)
			labels := map[string]string{"k8s-app": "kube-dns"}
			image := "registry.k8s.io/coredns/coredns:v1.11.1"
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "coredns", Image: image, Args: []string{"-conf", "/etc/coredns/Corefile"},
					Ports:          []corev1.ContainerPort{{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP}, {Name: "dns-tcp", ContainerPort: 53, Protocol: corev1.ProtocolTCP}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8181), Scheme: corev1.URISchemeHTTP}}},
					LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8080), Scheme: corev1.URISchemeHTTP}},
						InitialDelaySeconds: 60, TimeoutSeconds: 5, FailureThreshold: 5}}}}}
			st := c9kubeAvailable("coredns-58cb6bf589", 2, 3*time.Hour)
			st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas = 1, 1, 1
			_, rs := c8kubeDeployment(t, c, ns, "coredns", "58cb6bf589", 2, tmpl, c9kubeReadyRS(2, 1), st)
			ok := wlReadyStatus("coredns", image, 3*time.Hour+19*time.Minute)
			ok.PodIP, ok.PodIPs = "10.244.1.4", []corev1.PodIP{{IP: "10.244.1.4"}}
			c8kubePod(t, c, rs, "fthdc", drained, ok)
			bad := c8appNotReady("coredns", image, "10.244.2.7", 3*time.Hour+18*time.Minute)
			bp := c8kubePod(t, c, rs, "h58w6", other, bad)
			c8kubeEvent(t, c, bp, other, corev1.EventTypeWarning, "Unhealthy", "kubelet", "spec.containers{coredns}", "Readiness probe failed: HTTP probe failed with statuscode: 503", 1186, 3*time.Hour, 5*time.Second)
			c.Create(t, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "coredns", Namespace: ns},
				Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels}},
				Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 2, DisruptionsAllowed: 0,
					Conditions: []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse, Reason: policyv1.InsufficientPodsReason, ObservedGeneration: 1,
						LastTransitionTime: wlAgo(3 * time.Hour)}}}})
			return []string{"node/" + drained}
		},
	},
}
