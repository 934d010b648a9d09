package e2e

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The eleventh Kubernetes batch's second half (see
// scenarios_corpus11_kube_test.go for the batch and its first-round
// record).

// c11kubeNodeRes sets a node's capacity and allocatable.
func c11kubeNodeRes(cpu, mem string) func(*corev1.Node) {
	return func(n *corev1.Node) {
		for _, l := range []corev1.ResourceList{n.Status.Capacity, n.Status.Allocatable} {
			l[corev1.ResourceCPU], l[corev1.ResourceMemory] = resource.MustParse(cpu), resource.MustParse(mem)
		}
	}
}

var c11kubeScenarios2 = []scenario{
	{
		// First round: MISS. Today: FailedCreate/Other (0.60) "pods cannot be created: insufficient quota to match these scopes: [{PriorityClass In [system-node-critical system-cluster-critical]}]", culprit the daemonset with the message.
		// Missing: what the message means: the pod template's priorityClassName system-node-critical is a class whose consumption is limited (GKE's gcp-critical-pods quota), and the namespace has no ResourceQuota with that PriorityClass scope; fix: such a ResourceQuota in the namespace, or a priority class of the chart's own.
		name:     "real-daemonset-gke-critical-priority-class-without-quota",
		source:   "material: https://github.com/openebs-archive/cstor-operators/issues/196 (GKE private cluster 1.17.12-gke.2502: kubectl describe of the DaemonSet openebs-cstor-csi-node and of the StatefulSet openebs-cstor-csi-controller both say Error creating: insufficient quota to match these scopes: [{PriorityClass In [system-node-critical system-cluster-critical]}]; commenting out priorityClassName: system-node-critical let them be created; the maintainers' fix: the charts ship a priority class of their own, since some distributions do not allow the core priority classes (https://github.com/openebs/charts/pull/200)) with https://github.com/openservicemesh/osm/issues/4408 (GKE limits the consumption of these priority classes with the ResourceQuota gcp-critical-pods in kube-system (scopeSelector PriorityClass In [system-node-critical, system-cluster-critical]); a namespace without a ResourceQuota naming that scope may not run such pods) and https://github.com/admiraltyio/admiralty/issues/124 (workaround: a ResourceQuota with that scopeSelector in the chart's namespace); the containers, images and node names are this setup's, after cStor CSI 2.2.0",
		category: "FailedCreate",
		culprit:  []string{"priorityClassName", "system-node-critical"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			for _, sfx := range []string{"5j2k", "9qzt", "m7xw"} {
				c8kubeNode(t, c, "gke-openebs-private-default-pool-0f3a7c21-"+sfx, c8kubeNodeInfo("Ubuntu 18.04.5 LTS", "5.4.0-1027-gke", "containerd://1.4.1", "v1.17.12-gke.2502",
					"cloud.google.com/gke-nodepool", "default-pool", "cloud.google.com/gke-os-distribution", "ubuntu", "node.kubernetes.io/instance-type", "e2-standard-4"))
			}
			for _, sa := range []string{"openebs-cstor-csi-node-sa", "openebs-cstor-csi-controller-sa"} {
				c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: ns}})
			}
			quota := "Error creating: insufficient quota to match these scopes: [{PriorityClass In [system-node-critical system-cluster-critical]}]"
			registrar := corev1.Container{Name: "csi-node-driver-registrar", Image: "k8s.gcr.io/sig-storage/csi-node-driver-registrar:v2.0.1",
				Args: []string{"--v=5", "--csi-address=$(ADDRESS)", "--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)"}}
			ds := c4bDaemonSet(t, c, ns, "openebs-cstor-csi-node", "openebs/cstor-csi-driver:2.2.0", func(s *corev1.PodSpec) {
				s.PriorityClassName = "system-node-critical"
				s.ServiceAccountName = "openebs-cstor-csi-node-sa"
				s.HostNetwork = true
				s.Containers[0].Name = "cstor-csi-plugin"
				s.Containers[0].Args = []string{"--nodeid=$(OPENEBS_NODE_ID)", "--endpoint=$(OPENEBS_CSI_ENDPOINT)", "--url=$(OPENEBS_NODE_DRIVER)", "--plugin=$(OPENEBS_NODE_DRIVER)"}
				s.Containers = append([]corev1.Container{registrar}, s.Containers...)
			}, appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, NumberUnavailable: 3})
			c8kubeEvent(t, c, ds, "", corev1.EventTypeWarning, "FailedCreate", "daemonset-controller", "", quota, 24, 34*time.Minute, 40*time.Second)
			labels := map[string]string{"app": "openebs-cstor-csi-controller", "role": "openebs-cstor-csi"}
			sts := c4bStatefulSet(t, c, ns, "openebs-cstor-csi-controller", "openebs-cstor-csi-controller", labels, "openebs/cstor-csi-driver:2.2.0", 1, appsv1.OrderedReadyPodManagement, func(s *corev1.PodSpec) {
				s.PriorityClassName = "system-cluster-critical"
				s.ServiceAccountName = "openebs-cstor-csi-controller-sa"
				s.Containers[0].Name = "cstor-csi-plugin"
				s.Containers = append([]corev1.Container{{Name: "csi-provisioner", Image: "k8s.gcr.io/sig-storage/csi-provisioner:v2.0.2",
					Args: []string{"--csi-address=$(ADDRESS)", "--v=5", "--feature-gates=Topology=true", "--extra-create-metadata=true"}}}, s.Containers...)
			})
			sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, CurrentRevision: sts.Name + "-7b9d5c6f8d", UpdateRevision: sts.Name + "-7b9d5c6f8d", CollisionCount: ptr(int32(0))}
			c.SetObjectStatus(t, sts)
			c8kubeEvent(t, c, sts, "", corev1.EventTypeWarning, "FailedCreate", "statefulset-controller", "",
				"create Pod openebs-cstor-csi-controller-0 in StatefulSet openebs-cstor-csi-controller failed error: insufficient quota to match these scopes: [{PriorityClass In [system-node-critical system-cluster-critical]}]",
				22, 34*time.Minute, 55*time.Second)
			return []string{"daemonset/openebs-cstor-csi-node"}
		},
	},
	{
		// First round: MISS. Today: Unschedulable/InsufficientMemory (0.85) "pod cannot be scheduled (0/212 nodes fit): 8 Insufficient memory — the pod requests memory 8Gi; 3 nodes could hold that much when empty (fake-node allocates 8Gi) but the pods already placed there reserve too much of it (and 3 more reason(s))".
		// Missing: the cluster-autoscaler's NotTriggerScaleUp on the pod ("pod didn't trigger scale-up: ... 2 max node group size reached"): the pods that fit a new core node cannot get one because its pool is at its maximum size; fix: raise the node pool's maximum (or free the core nodes).
		name:     "real-deployment-prometheus-pending-node-pool-at-max-size",
		source:   "material: https://github.com/2i2c-org/infrastructure/issues/2248 (LEAP's prometheus server down: Normal Preempted pod/support-prometheus-server-548d55b8bc-hfkvk Preempted by kube-system/calico-node-rnths on node gke-leap-cluster-core-pool-1cc6bf7d-g77w, Killing of prometheus-server-configmap-reload and prometheus-server; its replacement support-prometheus-server-548d55b8bc-mhppb: Warning FailedScheduling 0/212 nodes are available: 200 node(s) had untolerated taint {k8s.dask.org_dedicated: worker}, 5 Insufficient cpu, 7 node(s) had untolerated taint {hub.jupyter.org_dedicated: user}, 8 Insufficient memory. preemption: 0/212 nodes are available: 207 Preemption is not helpful for scheduling, 5 No preemption victims found for incoming pod., and Normal NotTriggerScaleUp pod didn't trigger scale-up: 4 node(s) had untolerated taint {hub.jupyter.org_dedicated: user}, 2 node(s) had untolerated taint {k8s.dask.org_dedicated: worker}, 2 Insufficient memory, 1 Insufficient cpu, 2 max node group size reached; the maintainers: the pod no longer fits on the existing core nodes and fails to start on new ones as the group size is reached) with https://github.com/kubernetes/autoscaler/issues/5692 (pod didn't trigger scale-up: ... max node group size reached: the node group has reached its configured max size; fix: increase the node pool's maximum); the core nodes' sizes, the pods' requests and image tags, and the nodes of the other pools (not created here: the scheduler's message counts them) are this setup's",
		category: "Unschedulable",
		culprit:  []string{"max node group size reached"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			core := []string{"gke-leap-cluster-core-pool-1cc6bf7d-g77w", "gke-leap-cluster-core-pool-1cc6bf7d-x4nm"}
			for _, n := range core {
				c8kubeNode(t, c, n, c8kubeNodeInfo("Container-Optimized OS from Google", "5.10.147+", "containerd://1.6.9", "v1.24.9-gke.2000",
					"cloud.google.com/gke-nodepool", "core-pool", "hub.jupyter.org/node-purpose", "core", "k8s.dask.org/node-purpose", "core",
					"node.kubernetes.io/instance-type", "n2-highmem-4"), c11kubeNodeRes("3920m", "27Gi"))
			}
			labels := map[string]string{"app": "prometheus", "component": "server", "release": "support"}
			reloadImage, image := "jimmidyson/configmap-reload:v0.8.0", "quay.io/prometheus/prometheus:v2.41.0"
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "support-prometheus-server", Namespace: ns}})
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)}, Spec: corev1.PodSpec{ServiceAccountName: "support-prometheus-server",
				Containers: []corev1.Container{
					{Name: "prometheus-server-configmap-reload", Image: reloadImage, Args: []string{"--volume-dir=/etc/config", "--webhook-url=http://127.0.0.1:9090/-/reload"}},
					{Name: "prometheus-server", Image: image, Args: []string{"--storage.tsdb.retention.time=366d", "--config.file=/etc/config/prometheus.yml", "--storage.tsdb.path=/data"},
						Ports:     []corev1.ContainerPort{{ContainerPort: 9090, Protocol: corev1.ProtocolTCP}},
						Resources: corev1.ResourceRequirements{Requests: c10appRes("1", "8Gi"), Limits: c10appRes("4", "20Gi")}}}}}
			rsName := "support-prometheus-server-548d55b8bc"
			st := c8kubeUnavailable(rsName, 1, 57*time.Minute)
			dep, rs := c8kubeDeployment(t, c, ns, "support-prometheus-server", "548d55b8bc", 1, tmpl, appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1}, st)
			old := c8kubePod(t, c, rs, "hfkvk", core[0], c10appPod("10.0.3.41", 9*24*time.Hour, c10appCtr("prometheus-server-configmap-reload", reloadImage, true, 9*24*time.Hour, 0),
				c10appCtr("prometheus-server", image, true, 9*24*time.Hour, 0)))
			c8kubeEvent(t, c, old, "", corev1.EventTypeNormal, "Preempted", "default-scheduler", "", "Preempted by kube-system/calico-node-rnths on node "+core[0], 1, 57*time.Minute, 57*time.Minute)
			for _, ctr := range []string{"prometheus-server-configmap-reload", "prometheus-server"} {
				c8kubeEvent(t, c, old, core[0], corev1.EventTypeNormal, "Killing", "kubelet", "spec.containers{"+ctr+"}", "Stopping container "+ctr, 1, 57*time.Minute, 57*time.Minute)
			}
			if err := c.Client.CoreV1().Pods(ns).Delete(t.Context(), old.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}); err != nil {
				t.Fatal(err)
			}
			msg := "0/212 nodes are available: 200 node(s) had untolerated taint {k8s.dask.org_dedicated: worker}, 5 Insufficient cpu, 7 node(s) had untolerated taint {hub.jupyter.org_dedicated: user}, 8 Insufficient memory. preemption: 0/212 nodes are available: 207 Preemption is not helpful for scheduling, 5 No preemption victims found for incoming pod."
			p := c9kubeUnscheduled(t, c, ns, rsName+"-mhppb", rs.Spec.Template.Labels, wlController("ReplicaSet", rs), rs.Spec.Template.Spec, msg, 12, 57*time.Minute)
			c8kubeEvent(t, c, p, "", corev1.EventTypeWarning, "FailedScheduling", "default-scheduler", "",
				"0/212 nodes are available: 200 node(s) had untolerated taint {k8s.dask.org_dedicated: worker}, 5 Insufficient cpu, 7 Insufficient memory, 7 node(s) had untolerated taint {hub.jupyter.org_dedicated: user}. preemption: 0/212 nodes are available: 207 Preemption is not helpful for scheduling, 5 No preemption victims found for incoming pod.",
				4, 54*time.Minute, 50*time.Second)
			c8kubeEvent(t, c, p, "", corev1.EventTypeNormal, "NotTriggerScaleUp", "cluster-autoscaler", "",
				"pod didn't trigger scale-up: 4 node(s) had untolerated taint {hub.jupyter.org_dedicated: user}, 2 node(s) had untolerated taint {k8s.dask.org_dedicated: worker}, 2 Insufficient memory, 1 Insufficient cpu, 2 max node group size reached",
				31, 57*time.Minute, 2*time.Minute)
			c8kubeEvent(t, c, p, "", corev1.EventTypeNormal, "NotTriggerScaleUp", "cluster-autoscaler", "",
				"pod didn't trigger scale-up: 3 node(s) had untolerated taint {k8s.dask.org_dedicated: worker}, 5 node(s) had untolerated taint {hub.jupyter.org_dedicated: user}, 2 max node group size reached",
				22, 52*time.Minute, 70*time.Second)
			c8kubeEvent(t, c, dep, "", corev1.EventTypeNormal, "ScalingReplicaSet", "deployment-controller", "", "Scaled up replica set "+rsName+" to 1", 1, 9*24*time.Hour, 9*24*time.Hour)
			return []string{"deployment/support-prometheus-server"}
		},
	},
	{
		// First round: MISS. Today: CrashLoop/Exit1 (0.60) "container coredns crash-loops with exit code 1 (general application error)", culprit the container; the log's only line not quoted.
		// Missing: CoreDNS's "plugin/forward: no nameservers found": the Corefile (ConfigMap coredns) has forward . /etc/resolv.conf, and with dnsPolicy: Default the pods get the node's resolv.conf, which lists no nameserver; fix: a nameserver on the node, or no forward (and loop) in the Corefile.
		name:     "real-deployment-coredns-upstream-empty-node-resolver",
		source:   "material: https://github.com/coredns/coredns/issues/5764 (kubernetes coredns is in CrashLoopBackOff status when the /etc/resolv.conf is empty: Rocky Linux 9.0 (Blue Onyx), CoreDNS v1.8.6, the Corefile's forward . /etc/resolv.conf { prefer_udp max_concurrent 1000 } (kubespray's), log plugin/forward: no nameservers found; the maintainer: this is expected, since you configured forwarding to the nameservers of an empty /etc/resolv.conf: remove the forward plugin from the Corefile (or give the node a nameserver)) with https://github.com/coredns/coredns/issues/5952 (the same without external nameservers: remove the forward stanza, and loop with it) and https://github.com/kubean-io/kubean/issues/178 (no nameserver filled in the host machines' /etc/resolv.conf: coredns fails to boot with plugin/forward: no nameservers found); the node, the kubespray Service and ConfigMap around the thread's Corefile, and the restart counts are this setup's",
		category: "CrashLoop",
		culprit:  []string{"/etc/resolv.conf", "forward"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			node := "node1"
			c8kubeNode(t, c, node, c8kubeNodeInfo("Rocky Linux 9.0 (Blue Onyx)", "5.14.0-70.13.1.el9_0.x86_64", "containerd://1.6.8", "v1.24.6",
				"node-role.kubernetes.io/control-plane", ""))
			corefile := strings.Join([]string{".:53 {", "    errors", "    health {", "        lameduck 5s", "    }", "    ready",
				"    kubernetes cluster.local in-addr.arpa ip6.arpa {", "      pods insecure", "      fallthrough in-addr.arpa ip6.arpa", "    }",
				"    prometheus :9153", "    forward . /etc/resolv.conf {", "      prefer_udp", "      max_concurrent 1000", "    }",
				"    cache 30", "    loop", "    reload", "    loadbalance", "}", ""}, "\n")
			c4aConfigMap(t, c, ns, "coredns", map[string]string{"Corefile": corefile})
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "coredns", Namespace: ns}})
			labels := map[string]string{"k8s-app": "kube-dns"}
			image := "registry.k8s.io/coredns/coredns:v1.8.6"
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)}, Spec: corev1.PodSpec{
				ServiceAccountName: "coredns", DNSPolicy: corev1.DNSDefault,
				Volumes: []corev1.Volume{{Name: "config-volume", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "coredns"}, Items: []corev1.KeyToPath{{Key: "Corefile", Path: "Corefile"}}}}}},
				Containers: []corev1.Container{{Name: "coredns", Image: image, Args: []string{"-conf", "/etc/coredns/Corefile"},
					Ports: []corev1.ContainerPort{{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP}, {Name: "dns-tcp", ContainerPort: 53, Protocol: corev1.ProtocolTCP},
						{Name: "metrics", ContainerPort: 9153, Protocol: corev1.ProtocolTCP}},
					VolumeMounts:   []corev1.VolumeMount{{Name: "config-volume", MountPath: "/etc/coredns"}},
					Resources:      corev1.ResourceRequirements{Requests: c10appRes("100m", "70Mi"), Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("300Mi")}},
					LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8080)}}, InitialDelaySeconds: 60, PeriodSeconds: 10},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8181)}}, PeriodSeconds: 10}}}}}
			_, rs := c8kubeDeployment(t, c, ns, "coredns", "5c5b9d8f8f", 2, tmpl, c9kubeReadyRS(2, 0), c8kubeUnavailable("coredns-5c5b9d8f8f", 2, 47*time.Minute))
			c4bService(t, c, ns, "coredns", maps.Clone(labels), []corev1.ServicePort{{Name: "dns", Port: 53, TargetPort: intstr.FromInt32(53), Protocol: corev1.ProtocolUDP},
				{Name: "dns-tcp", Port: 53, TargetPort: intstr.FromInt32(53), Protocol: corev1.ProtocolTCP}, {Name: "metrics", Port: 9153, TargetPort: intstr.FromInt32(9153), Protocol: corev1.ProtocolTCP}})
			for i, sfx := range []string{"7vdmn", "zq8tk"} {
				st := c11kubeIP(c8kubeCrash("coredns", image, fmt.Sprintf("10.233.102.%d", 129+i), 1, 13+int32(i)), fmt.Sprintf("10.233.102.%d", 129+i), "192.168.122.11")
				p := c8kubePod(t, c, rs, sfx, node, st)
				c.SetLogs(ns, p.Name, "coredns", true, "plugin/forward: no nameservers found\n")
				c.SetLogs(ns, p.Name, "coredns", false, "plugin/forward: no nameservers found\n")
				c8appBackOff(t, c, p, "coredns", 210+int32(i)*7)
			}
			return []string{"deployment/coredns"}
		},
	},
	{
		// First round: MISS, on a wrong attribution. Today: FailedCreate/PodSecurity (0.95) "pods cannot be created: namespace ... enforces PodSecurity \"baseline:latest\" and the pod template violates it (non-default capabilities)", culprit "container istio-init securityContext of deployment/httpbin (non-default capabilities)".
		// Missing: deployment/httpbin has no istio-init container: Istio's sidecar injector adds it (the namespace is labelled istio-injection=enabled) with NET_ADMIN and NET_RAW for its iptables rules; the fix is not in the Deployment but the Istio CNI plugin (no istio-init), or a level that allows those capabilities.
		name:     "real-deployment-injected-init-container-refused-by-baseline",
		source:   "material: https://github.com/istio/istio/issues/35894 (Support PodSecurity; a maintainer records what a standard Istio sidecar injection meets: ... is forbidden: violates PodSecurity \"baseline:latest\": non-default capabilities (container \"istio-init\" must not include \"NET_ADMIN\", \"NET_RAW\" in securityContext.capabilities.add) from baseline, and the longer list (runAsNonRoot, runAsUser=0, seccompProfile, ...) from restricted; With CNI, baseline is fine: the istio-init container the injector adds needs NET_ADMIN and NET_RAW to program iptables, which baseline forbids; fix: the Istio CNI plugin, which replaces istio-init, or a namespace level that allows it); the Deployment is Istio's httpbin sample (docker.io/kennethreitz/httpbin, serviceaccount httpbin) in a namespace labelled istio-injection=enabled and pod-security.kubernetes.io/enforce=baseline; the replicaset-controller's Error creating wording and the ReplicaSet's hash are this setup's",
		category: "FailedCreate/PodSecurity",
		culprit:  []string{"istio-init", "istio-injection"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c11kubeLabelNamespace(t, c, ns, "istio-injection", "enabled", "pod-security.kubernetes.io/enforce", "baseline", "pod-security.kubernetes.io/enforce-version", "latest")
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "httpbin", Namespace: ns}})
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "httpbin", "version": "v1"}}, Spec: corev1.PodSpec{ServiceAccountName: "httpbin",
				Containers: []corev1.Container{{Name: "httpbin", Image: "docker.io/kennethreitz/httpbin", ImagePullPolicy: corev1.PullIfNotPresent,
					Ports: []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}}}}}}
			rsName := "httpbin-74fb669cc6"
			failure := fmt.Sprintf("pods %q is forbidden: violates PodSecurity \"baseline:latest\": non-default capabilities (container \"istio-init\" must not include \"NET_ADMIN\", \"NET_RAW\" in securityContext.capabilities.add)", rsName+"-m8q2z")
			st := c8kubeUnavailable(rsName, 1, 16*time.Minute, appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
				Message: failure, LastUpdateTime: wlAgo(16 * time.Minute), LastTransitionTime: wlAgo(16 * time.Minute)})
			st.UpdatedReplicas, st.Replicas = 0, 0
			dep, rs := c8kubeDeployment(t, c, ns, "httpbin", "74fb669cc6", 1, tmpl, appsv1.ReplicaSetStatus{Conditions: []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure,
				Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: failure, LastTransitionTime: wlAgo(16 * time.Minute)}}}, st)
			for i, sfx := range []string{"m8q2z", "c4v7n", "x9k2d"} {
				c8kubeEvent(t, c, rs, "", corev1.EventTypeWarning, "FailedCreate", "replicaset-controller", "",
					"Error creating: "+strings.Replace(failure, rsName+"-m8q2z", rsName+"-"+sfx, 1), []int32{1, 1, 9}[i], 16*time.Minute-time.Duration(i)*time.Second, []time.Duration{16 * time.Minute, 16*time.Minute - time.Second, 50 * time.Second}[i])
			}
			c8kubeEvent(t, c, dep, "", corev1.EventTypeNormal, "ScalingReplicaSet", "deployment-controller", "", "Scaled up replica set "+rsName+" to 1", 1, 16*time.Minute, 16*time.Minute)
			return []string{"deployment/httpbin"}
		},
	},
}
