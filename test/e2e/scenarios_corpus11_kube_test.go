package e2e

import (
	"fmt"
	"maps"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// An eleventh batch of Kubernetes-side scenarios from real material (issue
// threads with the recorded events, statuses and logs, whose resolution the
// thread established): a hard hostname spread that counts a tainted
// control-plane node, a regional disk quota under a StatefulSet's claims,
// a GCE load balancer health check that takes the readiness probe's path,
// a node left tainted by a cluster-autoscaler that restarted mid
// scale-down, a CSI node plugin DaemonSet that does not tolerate the node a
// tolerating pod landed on, the kubelet's image pull rate limit, a cloud
// account's load balancer quota, GKE's quota on the critical priority
// classes, a node pool at its autoscaling maximum, CoreDNS forwarding to an
// empty resolv.conf, an injected init container refused by Pod Security and
// an ingress controller whose ClusterRole predates its release. The
// expectations were written from the threads' resolutions before the first
// run; the setups are in this file and in scenarios_corpus11_kube2_test.go,
// registered only with KUBECTL_TRIAGE_REAL_MISSES set.
// First round against ed8ea336 (the batch at c049a045): 2 of 12 passed
// their checks, one of them only through a flaw of its setup (the EFS
// claim on a tainted node: the culprit efs-csi-node was in the scenario's
// name, hence in the namespace and in the PV named after it; the report
// names the CSI driver's error, not the DaemonSet), so 1 of 12 as a
// diagnosis: the account's TooManyLoadBalancers, captured into
// test/scenarios. The misses, each commented with what the report said:
// the EFS mount failure without the efs-csi-node DaemonSet that has no
// pod on the tainted node; the hostname spread named without the tainted
// control-plane node it counts (nodeTaintsPolicy); the mongo claim read as
// classless (its beta storage-class annotation ignored, the SSD_TOTAL_GB
// quota unquoted); the GCE ingress with an UNHEALTHY backend called
// healthy; the node left tainted by the cluster-autoscaler called
// healthy; "pull QPS exceeded" left as ImagePull/Unknown; the
// critical-priority quota quoted without the template's priorityClassName;
// the node pool at its maximum read as Insufficient memory
// (NotTriggerScaleUp unread); CoreDNS's "no nameservers found" read as a
// plain exit 1; the injected istio-init blamed on the Deployment's
// template (istio-injection unnamed); the rke2 ingress controller not
// found, the Ingress called healthy.
// Setup corrections, none of an expectation: six setups stopped at the API
// server before their first triage and were corrected: the efs-csi-node
// and openebs-cstor-csi-node containers lost privileged: true (refused by
// this API server's policy), and the ServiceAccounts of
// cluster-autoscaler, istio-ingressgateway, support-prometheus-server,
// coredns and the openebs workloads were created (their pods were refused
// without them). After the round, five scenarios whose names held a
// culprit string were renamed (the namespace is named after the scenario)
// and the EFS volume was given the example's name efs-pv; a re-run of the
// five gave the same verdicts, the EFS one now a miss.

func init() {
	if os.Getenv("KUBECTL_TRIAGE_REAL_MISSES") != "" {
		register(c11kubeScenarios...)
		register(c11kubeScenarios2...)
	}
}

// c11kubeUnixAgo is the Unix time of ago, as the cluster-autoscaler writes
// it in its taints' values.
func c11kubeUnixAgo(ago time.Duration) string {
	return fmt.Sprint(time.Now().Add(-ago).Unix())
}

// c11kubeIP gives a pod status the address ip on the node at hostIP.
func c11kubeIP(st corev1.PodStatus, ip, hostIP string) corev1.PodStatus {
	st.PodIP, st.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	st.HostIP, st.HostIPs = hostIP, []corev1.HostIP{{IP: hostIP}}
	return st
}

// c11kubeLabelNamespace adds labels (key, value pairs) to namespace ns.
func c11kubeLabelNamespace(t *testing.T, c *testcluster.Cluster, ns string, kv ...string) {
	t.Helper()
	got, err := c.Client.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels == nil {
		got.Labels = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		got.Labels[kv[i]] = kv[i+1]
	}
	if _, err := c.Client.CoreV1().Namespaces().Update(t.Context(), got, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("label namespace %s: %v", ns, err)
	}
}

// c11kubeWaitingPod is a scheduled pod whose container waits with reason
// (and message) since ago.
func c11kubeWaitingPod(container, image, reason, msg, hostIP string, ago time.Duration) corev1.PodStatus {
	st := c8kubeWaiting(container, image, reason, msg, ago, "")
	st.HostIP, st.HostIPs = hostIP, []corev1.HostIP{{IP: hostIP}}
	return st
}

var c11kubeScenarios = []scenario{
	{
		// First round: MISS. Today: Unschedulable/TopologySpread (0.80) "pod cannot be scheduled (0/2 nodes fit): 1 node(s) didn't match pod topology spread constraints — maxSkew 1 on kubernetes.io/hostname for k8s-app=kube-dns ...; domains: control-plane-us-west1-a-x6x7: 1 node, 0 pod(s) seen; fake-node: 1 node, 0 pod(s) seen; nodes-us-west1-a-2qpk: 1 node, 1 pod(s) seen", culprit the template's topologySpreadConstraints[1]; the taint on control-plane-us-west1-a-x6x7 is listed apart, as another reason (the harness's untainted fake-node also shows as an empty domain).
		// Missing: a DoNotSchedule spread whose empty domain is a node the pod does not tolerate: the scheduler still counts it (nodeTaintsPolicy defaults to Ignore), so the skew cannot be met on the node that is left; fix: nodeTaintsPolicy: Honor on the constraint.
		name:     "real-deployment-coredns-hostname-spread-counts-tainted-node",
		source:   "material: https://github.com/kubernetes/kops/pull/17472 (kops enforces CoreDNS's topologySpreadConstraints: the kubernetes.io/hostname constraint becomes whenUnsatisfiable: DoNotSchedule; a comment there: on a cluster of 1 control plane node and 1 worker, kops validate cluster fails with Pod kube-system/coredns-545b87966c-hlkxb system-cluster-critical pod \"coredns-545b87966c-hlkxb\" is pending, the second pod pending due to 0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/2 nodes are available: 1 Preemption is not helpful for scheduling, 1 node(s) didn't match pod topology spread constraints.; CoreDNS tolerates CriticalAddonsOnly and the not-ready/unreachable NoExecute taints only) with https://github.com/cilium/cilium/issues/41313 (the same failure on kops 1.33: instance groups control-plane-us-west1-a and nodes-us-west1-a, nodes control-plane-us-west1-a-x6x7 and nodes-us-west1-a-2qpk) and the resolution https://github.com/kubernetes/kops/pull/18535 (the tainted control-plane node was counted as an empty topology domain, so the second replica could never satisfy maxSkew; nodeTaintsPolicy: Honor excludes nodes with untolerated taints from the skew); the node OS, runtime versions and the CoreDNS image tag are this setup's",
		category: "Unschedulable",
		culprit:  []string{"control-plane", "nodeTaintsPolicy"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			cp, worker := "control-plane-us-west1-a-x6x7", "nodes-us-west1-a-2qpk"
			info := func(group string, role string) func(*corev1.Node) {
				return c8kubeNodeInfo("Ubuntu 24.04.2 LTS", "6.8.0-1031-gcp", "containerd://1.7.28", "v1.33.3",
					"node-role.kubernetes.io/"+role, "", "kops.k8s.io/instancegroup", group, "node.kubernetes.io/instance-type", "n2-standard-8",
					"topology.kubernetes.io/region", "us-west1", "topology.kubernetes.io/zone", "us-west1-a")
			}
			c8kubeNode(t, c, cp, info("control-plane-us-west1-a", "control-plane"), c4bTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule))
			c8kubeNode(t, c, worker, info("nodes-us-west1-a", "node"))
			labels := map[string]string{"k8s-app": "kube-dns"}
			image := "registry.k8s.io/coredns/coredns:v1.12.1"
			sel := &metav1.LabelSelector{MatchLabels: maps.Clone(labels)}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)}, Spec: corev1.PodSpec{
				PriorityClassName: "system-cluster-critical", DNSPolicy: corev1.DNSDefault, NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
				Tolerations: []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists},
					{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
					{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))}},
				TopologySpreadConstraints: []corev1.TopologySpreadConstraint{
					{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: sel},
					{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}},
				Containers: []corev1.Container{{Name: "coredns", Image: image, Args: []string{"-conf", "/etc/coredns/Corefile"},
					Ports: []corev1.ContainerPort{{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP}, {Name: "dns-tcp", ContainerPort: 53, Protocol: corev1.ProtocolTCP},
						{Name: "metrics", ContainerPort: 9153, Protocol: corev1.ProtocolTCP}},
					Resources:      corev1.ResourceRequirements{Requests: c10appRes("100m", "70Mi"), Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("170Mi")}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8181)}}, PeriodSeconds: 10}}}}}
			rsName := "coredns-545b87966c"
			st := appsv1.DeploymentStatus{Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 1, Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability.", LastUpdateTime: wlAgo(38 * time.Minute), LastTransitionTime: wlAgo(38 * time.Minute)},
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: fmt.Sprintf("ReplicaSet %q has timed out progressing.", rsName), LastUpdateTime: wlAgo(29 * time.Minute), LastTransitionTime: wlAgo(29 * time.Minute)}}}
			_, rs := c8kubeDeployment(t, c, ns, "coredns", "545b87966c", 2, tmpl, c9kubeReadyRS(2, 1), st)
			c8kubePod(t, c, rs, "q7t4d", worker, c11kubeIP(wlReadyStatus("coredns", image, 38*time.Minute), "100.96.1.3", "10.0.16.5"))
			msg := "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/2 nodes are available: 1 Preemption is not helpful for scheduling, 1 node(s) didn't match pod topology spread constraints."
			c9kubeUnscheduled(t, c, ns, rsName+"-hlkxb", rs.Spec.Template.Labels, wlController("ReplicaSet", rs), rs.Spec.Template.Spec, msg, 23, 39*time.Minute)
			return []string{"deployment/coredns"}
		},
	},
	{
		// First round: MISS, on a wrong reading. Today: PVC/Pending/NoDefaultStorageClass (0.80) "PVC mongo-persistent-storage-mongo-1 has no storageClassName and the cluster has no default StorageClass (fast (kubernetes.io/gce-pd))".
		// Missing: the claim names its class by the annotation volume.beta.kubernetes.io/storage-class: "fast" (the claim template's), which the provisioner honours; the persistentvolume-controller's ProvisioningFailed on the claim (Quota 'SSD_TOTAL_GB' exceeded. Limit: 100.0 in region us-west1) is the cause: the first claim took the region's SSD quota.
		name:     "real-statefulset-mongo-gce-pd-ssd-total-gb-quota-exceeded",
		source:   "material: https://github.com/googlecodelabs/feedback/issues/440 (the cloud-mongodb-statefulset codelab: a StatefulSet mongo whose volumeClaimTemplate mongo-persistent-storage asks 100Gi of StorageClass \"fast\" (kubernetes.io/gce-pd, pd-ssd) exceeds the default quota of a new project: Warning ProvisioningFailed persistentvolume-controller Failed to provision volume with StorageClass \"fast\": googleapi: Error 403: Quota 'SSD_TOTAL_GB' exceeded. Limit: 100.0 in region us-west1., quotaExceeded (x13) on mongo-persistent-storage-mongo-1, and Warning FailedScheduling default-scheduler PersistentVolumeClaim is not bound: \"mongo-persistent-storage-mongo-1\" (repeated 3 times) on mongo-1: the first claim takes the region's 100 GB of SSD and the second cannot be provisioned; fix: smaller claims or a quota increase); the manifests follow the codelab's (mongo with --replSet rs0 and the cvallance/mongo-k8s-sidecar); the node names and the first disk's name are this setup's",
		category: "PVC/Pending",
		culprit:  []string{"SSD_TOTAL_GB"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c10kubeClass(t, c, "fast", "kubernetes.io/gce-pd", storagev1.VolumeBindingImmediate, false, false, map[string]string{"type": "pd-ssd"})
			node := "gke-mongo-cluster-default-pool-2c6a13f0-7kq4"
			c8kubeNode(t, c, node, c8kubeNodeInfo("Container-Optimized OS from Google", "4.4.111+", "docker://17.3.2", "v1.10.4-gke.2",
				"cloud.google.com/gke-nodepool", "default-pool", "failure-domain.beta.kubernetes.io/region", "us-west1", "failure-domain.beta.kubernetes.io/zone", "us-west1-b"))
			labels := map[string]string{"role": "mongo", "environment": "test"}
			c4bService(t, c, ns, "mongo", maps.Clone(labels), []corev1.ServicePort{c4bPort("", 27017, intstr.FromInt32(27017))}, func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone })
			class := "fast"
			sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "mongo", Namespace: ns},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(3)), ServiceName: "mongo", Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)}, Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr(int64(10)),
						Containers: []corev1.Container{
							{Name: "mongo", Image: "mongo", Command: []string{"mongod", "--replSet", "rs0", "--smallfiles", "--noprealloc", "--bind_ip", "0.0.0.0"},
								Ports: []corev1.ContainerPort{{ContainerPort: 27017, Protocol: corev1.ProtocolTCP}}, VolumeMounts: []corev1.VolumeMount{{Name: "mongo-persistent-storage", MountPath: "/data/db"}}},
							{Name: "mongo-sidecar", Image: "cvallance/mongo-k8s-sidecar", Env: []corev1.EnvVar{{Name: "MONGO_SIDECAR_POD_LABELS", Value: "role=mongo,environment=test"}}}}}},
					VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "mongo-persistent-storage", Annotations: map[string]string{"volume.beta.kubernetes.io/storage-class": "fast"}},
						Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
							Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Gi")}}}}}}}
			c.Create(t, sts)
			sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, CurrentReplicas: 2, UpdatedReplicas: 2,
				CurrentRevision: "mongo-7b9d5c6f8d", UpdateRevision: "mongo-7b9d5c6f8d", CollisionCount: ptr(int32(0))}
			c.SetObjectStatus(t, sts)
			pv := "pvc-5be7a0f4-799c-11e8-a5b3-42010a8a0fd3"
			c9kubeBoundClaim(t, c, ns, "mongo-persistent-storage-mongo-0", pv, class, "kubernetes.io/gce-pd", "100Gi", []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, false,
				corev1.PersistentVolumeSource{GCEPersistentDisk: &corev1.GCEPersistentDiskVolumeSource{PDName: "gke-mongo-cluster-4d1e2-" + pv, FSType: "ext4"}})
			st := c10appPod("10.8.0.12", 9*time.Minute, c10appCtr("mongo", "mongo", true, 9*time.Minute, 0), c10appCtr("mongo-sidecar", "cvallance/mongo-k8s-sidecar", true, 9*time.Minute, 0))
			st.HostIP = "10.138.0.2"
			c9kubeStsPod(t, c, sts, 0, node, st)
			pending := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "mongo-persistent-storage-mongo-1", Namespace: ns, Labels: maps.Clone(labels),
				Annotations: map[string]string{"volume.beta.kubernetes.io/storage-class": "fast", "volume.beta.kubernetes.io/storage-provisioner": "kubernetes.io/gce-pd"}},
				Spec:   *sts.Spec.VolumeClaimTemplates[0].Spec.DeepCopy(),
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
			c.Create(t, pending)
			c8kubeEvent(t, c, pending, "", corev1.EventTypeWarning, "ProvisioningFailed", "persistentvolume-controller", "",
				"Failed to provision volume with StorageClass \"fast\": googleapi: Error 403: Quota 'SSD_TOTAL_GB' exceeded. Limit: 100.0 in region us-west1., quotaExceeded", 13, 3*time.Minute, 6*time.Second)
			msg := "PersistentVolumeClaim is not bound: \"mongo-persistent-storage-mongo-1\" (repeated 3 times)"
			p := c9kubeStsPod(t, c, sts, 1, "", corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: "Unschedulable", Message: msg, LastTransitionTime: wlAgo(3 * time.Minute)}}})
			c8kubeEvent(t, c, p, "", corev1.EventTypeWarning, "FailedScheduling", "default-scheduler", "", msg, 15, 3*time.Minute, 5*time.Second)
			return []string{"statefulset/mongo"}
		},
	},
	{
		// First round: PASSED its checks, on a setup flaw (the scenario was named ...-without-efs-csi-node and the PV efs-pv-NAMESPACE, so the culprit string was in the report through the PV's name); as a diagnosis a MISS. Today (re-run after the rename): Volume/Mount/Device (0.75) "volume persistent-storage (PVC efs-claim, PV efs-pv) cannot be mounted on the node: kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name efs.csi.aws.com not found in the list of registered CSI drivers".
		// Missing: which node plugin should have registered the driver: the efs-csi-node DaemonSet runs on 5 of 7 nodes, not on ip-192-168-88-62 (tainted workload=batch:NoSchedule, which the pod tolerates and the DaemonSet does not); fix: tolerations on the DaemonSet (tolerate all taints).
		name:     "real-pod-efs-volume-on-tainted-node-without-driver-pod",
		source:   "material: https://github.com/kubernetes-sigs/aws-efs-csi-driver/issues/122 (EKS v1.14.9, driver v0.2.0: a pod mounting an EFS claim works without tolerations; with tolerations it stays ContainerCreating: driver name efs.csi.aws.com not found in the list of registered CSI drivers; a comment: it has to do with the daemonset: kubectl get ds shows aws-node 7/7, ebs-csi-node 7/7, efs-csi-node 5/5 (node selector beta.kubernetes.io/os=linux) and fluentd 5/5: efs-csi-node does not run on the tainted nodes the tolerating pod can land on) with the resolution https://github.com/kubernetes-sigs/aws-efs-csi-driver/pull/133 (the efs-csi-node DaemonSet tolerates all taints, so it runs on every node) and the kubelet's full FailedMount wording from https://github.com/kubernetes-sigs/aws-efs-csi-driver/issues/323 (MountVolume.MountDevice failed for volume ... : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name efs.csi.aws.com not found in the list of registered CSI drivers); the pod is the driver's static provisioning example (app, centos); the taint, the node names, the file system id and the times are this setup's",
		category: "Volume/Mount",
		culprit:  []string{"efs-csi-node"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			var nodes []string
			for i := 0; i < 7; i++ {
				name := fmt.Sprintf("ip-192-168-%d-%d.ec2.internal", 10+i*13, 20+i*7)
				mut := []func(*corev1.Node){c8kubeNodeInfo("Amazon Linux 2", "4.14.154-128.181.amzn2.x86_64", "docker://18.9.9", "v1.14.8-eks-b8860f",
					"beta.kubernetes.io/os", "linux", "node.kubernetes.io/instance-type", "m5.2xlarge", "failure-domain.beta.kubernetes.io/zone", []string{"us-east-1a", "us-east-1b"}[i%2])}
				if i >= 5 {
					mut = append(mut, c4bLabel("workload", "batch"), c4bTaint("workload", "batch", corev1.TaintEffectNoSchedule))
				}
				c8kubeNode(t, c, name, mut...)
				nodes = append(nodes, name)
			}
			dsImage := "amazon/aws-efs-csi-driver:v0.2.0"
			ds := c4bDaemonSet(t, c, ns, "efs-csi-node", dsImage, func(s *corev1.PodSpec) {
				s.NodeSelector = map[string]string{"beta.kubernetes.io/os": "linux"}
				s.HostNetwork = true
				s.Containers[0].Name = "efs-plugin"
				s.Containers[0].Args = []string{"--endpoint=$(CSI_ENDPOINT)", "--logtostderr", "--v=5"}
				s.Containers = append(s.Containers,
					corev1.Container{Name: "csi-driver-registrar", Image: "quay.io/k8scsi/csi-node-driver-registrar:v1.1.0",
						Args: []string{"--csi-address=$(ADDRESS)", "--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)", "--v=5"}},
					corev1.Container{Name: "liveness-probe", Image: "quay.io/k8scsi/livenessprobe:v1.1.0", Args: []string{"--csi-address=/csi/csi.sock", "--health-port=9809"}})
			}, appsv1.DaemonSetStatus{DesiredNumberScheduled: 5, CurrentNumberScheduled: 5, NumberReady: 5, NumberAvailable: 5, UpdatedNumberScheduled: 5})
			for i, n := range nodes[:5] {
				st := c10appPod(fmt.Sprintf("192.168.%d.%d", 10+i*13, 20+i*7), 6*24*time.Hour,
					c10appCtr("efs-plugin", dsImage, true, 6*24*time.Hour, 0), c10appCtr("csi-driver-registrar", "quay.io/k8scsi/csi-node-driver-registrar:v1.1.0", true, 6*24*time.Hour, 0),
					c10appCtr("liveness-probe", "quay.io/k8scsi/livenessprobe:v1.1.0", true, 6*24*time.Hour, 0))
				st.HostIP = st.PodIP
				c4bDaemonPod(t, c, ds, n, fmt.Sprintf("%c%c%c%c%c", 'f'+i, 'k', '2'+i, 'q', 'w'+i%3), st)
			}
			class := "efs-sc"
			c10kubeClass(t, c, class, "efs.csi.aws.com", storagev1.VolumeBindingImmediate, false, false, nil)
			pvc := c9kubeBoundClaim(t, c, ns, "efs-claim", "efs-pv", class, "efs.csi.aws.com", "5Gi", []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, false,
				corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "efs.csi.aws.com", VolumeHandle: "fs-4af69aab"}},
				func(pv *corev1.PersistentVolume) {
					pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
				})
			image := "centos"
			p := c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns, Labels: map[string]string{"app": "efs-app"}},
				Spec: corev1.PodSpec{NodeName: nodes[6],
					Tolerations: []corev1.Toleration{{Key: "workload", Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoSchedule}},
					Containers: []corev1.Container{{Name: "app", Image: image, Command: []string{"/bin/sh"}, Args: []string{"-c", "while true; do echo $(date -u) >> /data/out.txt; sleep 5; done"},
						VolumeMounts: []corev1.VolumeMount{{Name: "persistent-storage", MountPath: "/data"}}}},
					Volumes: []corev1.Volume{{Name: "persistent-storage", VolumeSource: c4aClaimSource(pvc.Name)}}},
				Status: c11kubeWaitingPod("app", image, "ContainerCreating", "", "192.168.75.62", 24*time.Minute)})
			c8kubeEvent(t, c, p, "", corev1.EventTypeNormal, "Scheduled", "default-scheduler", "", fmt.Sprintf("Successfully assigned %s/app to %s", ns, nodes[6]), 1, 24*time.Minute, 24*time.Minute)
			c8kubeEvent(t, c, p, nodes[6], corev1.EventTypeWarning, "FailedMount", "kubelet", "",
				fmt.Sprintf("MountVolume.MountDevice failed for volume %q : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name efs.csi.aws.com not found in the list of registered CSI drivers", pvc.Spec.VolumeName),
				19, 24*time.Minute, 70*time.Second)
			c8kubeEvent(t, c, p, nodes[6], corev1.EventTypeWarning, "FailedMount", "kubelet", "",
				fmt.Sprintf("Unable to mount volumes for pod \"app_%s(%s)\": timeout expired waiting for volumes to attach or mount for pod %q/\"app\". list of unmounted volumes=[persistent-storage]. list of unattached volumes=[persistent-storage default-token-8x7kq]", ns, p.UID, ns),
				10, 22*time.Minute, 90*time.Second)
			return []string{"pod/app"}
		},
	},
	{
		// First round: MISS. Today: ImagePull/Unknown (0.60) "container image-0 cannot pull image a.b.c/image-0.1".
		// Missing: "pull QPS exceeded" is the kubelet's own pull rate limit (registryPullQPS 5, registryBurst 10 by default), hit when many pods on one node pull at once (9 siblings on aks--38921313-vmss000000 pulled in the same minute); not the registry's; fix: raise registryPullQPS/registryBurst in the kubelet configuration.
		name:     "real-pod-image-pull-qps-exceeded-many-pods-one-node",
		source:   "material: https://github.com/Azure/AKS/issues/3138 (when multiple pods start pulling images at the same time the pulls fail: Warning Failed 52s kubelet Failed to pull image \"a.b.c/image-0.1\": pull QPS exceeded, Warning Failed 52s kubelet Error: ErrImagePull, Normal BackOff 45s (x2 over 46s) kubelet Back-off pulling image \"a.b.c/image-0.1\", Warning Failed 45s (x2 over 46s) kubelet Error: ImagePullBackOff; the node aks--38921313-vmss000000 runs the default kubelet configuration, its configz: \"registryPullQPS\": 5, \"registryBurst\": 10: the kubelet's own pull rate limit refuses the burst, not the registry; fix: raise registryPullQPS/registryBurst in the kubelet configuration) with https://github.com/cortexlabs/cortex/issues/1989 (the same on scale-up: the default pull QPS of 5 per node is hit when a node starts many pods at once; increase registry-qps via eksctl kubeletExtraConfig); the Deployment, its replica count and which replicas pulled are this setup's",
		category: "ImagePull",
		culprit:  []string{"registryPullQPS"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			node := "aks--38921313-vmss000000"
			c8kubeNode(t, c, node, c8kubeNodeInfo("Ubuntu 18.04.6 LTS", "5.4.0-1089-azure", "containerd://1.5.11+azure-2", "v1.23.8",
				"kubernetes.azure.com/agentpool", "nodepool1", "node.kubernetes.io/instance-type", "Standard_D8s_v3", "kubernetes.azure.com/mode", "system"))
			image := "a.b.c/image-0.1"
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "image-0"}}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "image-0", Image: image, ImagePullPolicy: corev1.PullAlways}}}}
			st := c8kubeUnavailable("image-0-6c8f9b7d5", 12, 2*time.Minute)
			st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas = 9, 9, 3
			_, rs := c8kubeDeployment(t, c, ns, "image-0", "6c8f9b7d5", 12, tmpl, c9kubeReadyRS(12, 9), st)
			var failing *corev1.Pod
			for i := 0; i < 12; i++ {
				sfx := fmt.Sprintf("%c%c%c%c%c", 'b'+i, 'q'+i%5, '2'+i%7, 'x', 'm'+i%9)
				ip := fmt.Sprintf("10.244.2.%d", 30+i)
				if i < 9 {
					c8kubePod(t, c, rs, sfx, node, c11kubeIP(wlReadyStatus("image-0", image, 50*time.Second), ip, "10.240.0.4"))
					continue
				}
				wait := c11kubeWaitingPod("image-0", image, "ImagePullBackOff", fmt.Sprintf("Back-off pulling image %q", image), "10.240.0.4", 58*time.Second)
				wait.PodIP, wait.PodIPs = ip, []corev1.PodIP{{IP: ip}}
				p := c8kubePod(t, c, rs, sfx, node, wait)
				field := "spec.containers{image-0}"
				c8kubeEvent(t, c, p, "", corev1.EventTypeNormal, "Scheduled", "default-scheduler", "", fmt.Sprintf("Successfully assigned %s/%s to %s", ns, p.Name, node), 1, 58*time.Second, 58*time.Second)
				c8kubeEvent(t, c, p, node, corev1.EventTypeNormal, "Pulling", "kubelet", field, fmt.Sprintf("Pulling image %q", image), 1, 57*time.Second, 57*time.Second)
				c8kubeEvent(t, c, p, node, corev1.EventTypeWarning, "Failed", "kubelet", field, fmt.Sprintf("Failed to pull image %q: pull QPS exceeded", image), 1, 52*time.Second, 52*time.Second)
				c8kubeEvent(t, c, p, node, corev1.EventTypeWarning, "Failed", "kubelet", field, "Error: ErrImagePull", 1, 52*time.Second, 52*time.Second)
				c8kubeEvent(t, c, p, node, corev1.EventTypeNormal, "BackOff", "kubelet", field, fmt.Sprintf("Back-off pulling image %q", image), 2, 46*time.Second, 45*time.Second)
				c8kubeEvent(t, c, p, node, corev1.EventTypeWarning, "Failed", "kubelet", field, "Error: ImagePullBackOff", 2, 46*time.Second, 45*time.Second)
				if failing == nil {
					failing = p
				}
			}
			return []string{"pod/" + failing.Name}
		},
	},
}
