package e2e

import (
	"fmt"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

func init() { register(storageScenarios...) }

// nsStorageClass creates a (never default) StorageClass named after the
// test namespace: classes are cluster-scoped and the cluster is shared.
func nsStorageClass(t *testing.T, c *testcluster.Cluster, ns, prefix, provisioner string, mode storagev1.VolumeBindingMode) string {
	name := prefix + "-" + ns
	c.Create(t, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &mode})
	return name
}

// nsClaim creates a 10Gi ReadWriteOnce claim, Pending unless status says
// otherwise (the persistentvolume controller's part).
func nsClaim(t *testing.T, c *testcluster.Cluster, ns, name string, class *string, mutate ...func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: class,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
	}
	for _, m := range mutate {
		m(pvc)
	}
	c.Create(t, pvc)
	return pvc
}

// nsClaimEvent is an event of the persistentvolume controller about a claim.
func nsClaimEvent(t *testing.T, c *testcluster.Cluster, pvc *corev1.PersistentVolumeClaim, typ, reason, msg string, count int32, first time.Time) {
	c.Event(t, testcluster.EventSpec{Object: pvc, Type: typ, Reason: reason, Message: msg, Count: count, First: first, Component: "persistentvolume-controller"})
}

// nsCreatingStatus: the kubelet is still setting the pod's volumes up.
func nsCreatingStatus(container, image string) corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodPending, HostIP: "127.0.0.1", StartTime: ptr(minutesAgo(15)),
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(15)},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(15)},
			{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [" + container + "]", LastTransitionTime: minutesAgo(15)},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [" + container + "]", LastTransitionTime: minutesAgo(15)},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Image: image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}},
	}
}

// nsPodWithVolume creates a pod stuck in ContainerCreating with one volume.
func nsPodWithVolume(t *testing.T, c *testcluster.Cluster, ns, name string, vol corev1.Volume) *corev1.Pod {
	return c.CreatePod(t, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "shop/" + name + ":1.0.0",
				VolumeMounts: []corev1.VolumeMount{{Name: vol.Name, MountPath: "/data"}}}},
			Volumes: []corev1.Volume{vol},
		},
		Status: nsCreatingStatus("app", "shop/"+name+":1.0.0"),
	})
}

// nsHPA creates an HPA on Deployment web (70% CPU) with the controller's
// conditions.
func nsHPA(t *testing.T, c *testcluster.Cluster, ns string, current int32, conds ...autoscalingv2.HorizontalPodAutoscalerCondition) *autoscalingv2.HorizontalPodAutoscaler {
	minR, util := int32(2), int32(70)
	h := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    &minR, MaxReplicas: 6,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &util}}}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: current, DesiredReplicas: current, Conditions: conds,
			LastScaleTime: ptr(minutesAgo(20))},
	}
	c.Create(t, h)
	return h
}

func nsHPACond(typ autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, msg string) autoscalingv2.HorizontalPodAutoscalerCondition {
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: minutesAgo(25)}
}

var nsAbleToScale = nsHPACond(autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")

// nsWeb is the HPA's scale target: Deployment web, healthy, with the given
// CPU request (none when empty).
func nsWeb(t *testing.T, c *testcluster.Cluster, ns string, replicas int32, cpu string) {
	tmpl := nsTemplate(map[string]string{"app": "web"}, "web", "shop/web:5.2.0", corev1.ContainerPort{Name: "http", ContainerPort: 8080})
	if cpu != "" {
		tmpl.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	}
	c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "web", Replicas: replicas, Template: tmpl, PodStatus: nsReadyPodStatus("web", "shop/web:5.2.0")})
}

var storageScenarios = []scenario{
	{
		name: "storage-pvc-class-missing",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			nsStorageClass(t, c, ns, "standard", "ebs.csi.aws.com", storagev1.VolumeBindingImmediate)
			pvc := nsClaim(t, c, ns, "data", ptr("fast-ssd"))
			nsClaimEvent(t, c, pvc, corev1.EventTypeWarning, "ProvisioningFailed", `storageclass.storage.k8s.io "fast-ssd" not found`, 14, time.Now().Add(-20*time.Minute))
			return []string{"pvc/data"}
		},
		category: "PVC/Pending/StorageClassMissing",
		culprit:  []string{`"fast-ssd"`, "not found"},
	},
	{
		// Relies on no scenario ever marking a StorageClass default: the
		// cluster is shared.
		name: "storage-pvc-no-default-class",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			nsStorageClass(t, c, ns, "slow", "ebs.csi.aws.com", storagev1.VolumeBindingImmediate)
			pvc := nsClaim(t, c, ns, "uploads", nil)
			nsClaimEvent(t, c, pvc, corev1.EventTypeNormal, "FailedBinding", "no persistent volumes available for this claim and no storage class is set", 61, time.Now().Add(-15*time.Minute))
			return []string{"persistentvolumeclaim/uploads"}
		},
		category: "PVC/Pending/NoDefaultStorageClass",
		culprit:  []string{"no default StorageClass"},
	},
	{
		name: "storage-pvc-wait-for-first-consumer",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			class := nsStorageClass(t, c, ns, "local-path", "rancher.io/local-path", storagev1.VolumeBindingWaitForFirstConsumer)
			pvc := nsClaim(t, c, ns, "cache", &class)
			nsClaimEvent(t, c, pvc, corev1.EventTypeNormal, "WaitForFirstConsumer", "waiting for first consumer to be created before binding", 26, time.Now().Add(-10*time.Minute))
			return []string{"pvc/cache"}
		},
		category: "PVC/Pending/WaitForFirstConsumer",
		culprit:  []string{"no pod uses it yet"},
	},
	{
		name: "storage-pvc-provisioner-not-running",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			class := nsStorageClass(t, c, ns, "gp3", "ebs.csi.aws.com", storagev1.VolumeBindingImmediate)
			pvc := nsClaim(t, c, ns, "data", &class, func(p *corev1.PersistentVolumeClaim) {
				p.Annotations = map[string]string{"volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com"}
			})
			nsClaimEvent(t, c, pvc, corev1.EventTypeNormal, "ExternalProvisioning",
				"Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
				42, time.Now().Add(-12*time.Minute))
			return []string{"pvc/data"}
		},
		category: "PVC/Pending/NoProvisioner",
		culprit:  []string{"ebs.csi.aws.com"},
	},
	{
		name: "storage-pvc-static-class-without-pv",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			class := nsStorageClass(t, c, ns, "local", "kubernetes.io/no-provisioner", storagev1.VolumeBindingImmediate)
			pvc := nsClaim(t, c, ns, "data", &class)
			nsClaimEvent(t, c, pvc, corev1.EventTypeWarning, "ProvisioningFailed", "no volume plugin matched name: kubernetes.io/no-provisioner", 9, time.Now().Add(-30*time.Minute))
			return []string{"pvc/data"}
		},
		category: "PVC/Pending/NoMatchingPV",
		culprit:  []string{"pvc/data", "10Gi"},
	},
	{
		// The pod is the symptom, its claim's class the cause.
		name: "storage-pod-claim-class-missing",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			pvc := nsClaim(t, c, ns, "pgdata", ptr("premium-rwo"))
			nsClaimEvent(t, c, pvc, corev1.EventTypeWarning, "ProvisioningFailed", `storageclass.storage.k8s.io "premium-rwo" not found`, 20, time.Now().Add(-20*time.Minute))
			msg := "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
			p := c.CreatePod(t, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "postgres", Namespace: ns, Annotations: map[string]string{testcluster.AnnotationUnscheduled: "true"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres", Image: "postgres:16"}},
					Volumes: []corev1.Volume{{Name: "pgdata", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "pgdata"}}}}},
				Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
					Reason: "Unschedulable", Message: msg, LastTransitionTime: minutesAgo(20)}}},
			})
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedScheduling", Component: "default-scheduler", Count: 6, Message: msg})
			return []string{"pod/postgres"}
		},
		category: "PVC/Pending/StorageClassMissing",
		culprit:  []string{`"premium-rwo"`},
	},
	{
		name: "storage-pod-configmap-volume-missing",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			p := nsPodWithVolume(t, c, ns, "gateway", corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "gateway-config"}}}})
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedMount", Count: 9, First: time.Now().Add(-14 * time.Minute),
				Message: `MountVolume.SetUp failed for volume "config" : configmap "gateway-config" not found`})
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedMount", Count: 6, First: time.Now().Add(-12 * time.Minute),
				Message: "Unable to attach or mount volumes: unmounted volumes=[config], unattached volumes=[config kube-api-access-5x7k2], failed to process volumes=[]: timed out waiting for the condition"})
			return []string{"pod/gateway"}
		},
		category: "Volume/Mount/ConfigMapMissing",
		culprit:  []string{"volume config", "gateway-config"},
	},
	{
		name: "storage-pod-multi-attach",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			pvName := "pvc-" + ns
			c.Create(t, &corev1.PersistentVolume{
				ObjectMeta: metav1.ObjectMeta{Name: pvName, Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": "ebs.csi.aws.com"}},
				Spec: corev1.PersistentVolumeSpec{
					Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: "gp3",
					PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
					PersistentVolumeSource:        corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: "vol-0f1e2d3c4b5a69788"}},
					ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: "data"},
				},
				Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
			})
			nsClaim(t, c, ns, "data", ptr("gp3"), func(p *corev1.PersistentVolumeClaim) {
				p.Spec.VolumeName = pvName
				p.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: p.Spec.AccessModes,
					Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}
			})
			p := nsPodWithVolume(t, c, ns, "ledger", corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}})
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedAttachVolume", Component: "attachdetach-controller", Count: 1, First: time.Now().Add(-14 * time.Minute),
				Message: fmt.Sprintf(`Multi-Attach error for volume %q Volume is already exclusively attached to one node and can't be attached to another`, pvName)})
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedMount", Count: 6, First: time.Now().Add(-12 * time.Minute),
				Message: "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data kube-api-access-9qz4m]: timed out waiting for the condition"})
			return []string{"pod/ledger"}
		},
		category: "Volume/Attach/MultiAttach",
		culprit:  []string{"PVC data", "already exclusively attached"},
	},
	{
		name: "storage-pod-nfs-timeout",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			p := nsPodWithVolume(t, c, ns, "reports", corev1.Volume{Name: "shared", VolumeSource: corev1.VolumeSource{
				NFS: &corev1.NFSVolumeSource{Server: "10.20.0.5", Path: "/exports/reports"}}})
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedMount", Count: 5, First: time.Now().Add(-16 * time.Minute),
				Message: "MountVolume.SetUp failed for volume \"shared\" : mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t nfs 10.20.0.5:/exports/reports /var/lib/kubelet/pods/" + string(p.UID) + "/volumes/kubernetes.io~nfs/shared\nOutput: mount.nfs: Connection timed out\n"})
			return []string{"pod/reports"}
		},
		category: "Volume/Mount/NFS",
		culprit:  []string{"10.20.0.5:/exports/reports", "mount.nfs: Connection timed out"},
	},
	{
		name: "storage-hpa-missing-cpu-request",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			nsWeb(t, c, ns, 2, "")
			h := nsHPA(t, c, ns, 2, nsAbleToScale,
				nsHPACond(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric",
					"the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container web of Pod web-5d8f7c9b4-x2x7q"))
			c.Event(t, testcluster.EventSpec{Object: h, Reason: "FailedGetResourceMetric", Component: "horizontal-pod-autoscaler", Count: 40, First: time.Now().Add(-25 * time.Minute),
				Message: "failed to get cpu utilization: missing request for cpu in container web of Pod web-5d8f7c9b4-x2x7q"})
			c.Event(t, testcluster.EventSpec{Object: h, Reason: "FailedComputeMetricsReplicas", Component: "horizontal-pod-autoscaler", Count: 40, First: time.Now().Add(-25 * time.Minute),
				Message: "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu in container web of Pod web-5d8f7c9b4-x2x7q"})
			return []string{"hpa/web"}
		},
		category: "HPA/MissingRequest",
		culprit:  []string{"deployment/web container web resources.requests.cpu"},
	},
	{
		name: "storage-hpa-metrics-server-missing",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			nsWeb(t, c, ns, 2, "250m")
			nsHPA(t, c, ns, 2, nsAbleToScale,
				nsHPACond(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric",
					"the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"))
			return []string{"horizontalpodautoscaler/web"}
		},
		category: "HPA/MetricsAPIUnavailable",
		culprit:  []string{"metrics.k8s.io", "could not find the requested resource"},
	},
	{
		// At maxReplicas the HPA works as configured: the report says so.
		name: "storage-hpa-at-max-replicas",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			nsWeb(t, c, ns, 6, "250m")
			nsHPA(t, c, ns, 6, nsAbleToScale,
				nsHPACond(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)"),
				nsHPACond(autoscalingv2.ScalingLimited, corev1.ConditionTrue, "TooManyReplicas", "the desired replica count is more than the maximum replica count"))
			return []string{"hpa/web"}
		},
		category: "HPA/Limited/MaxReplicas",
		culprit:  []string{"maxReplicas 6"},
	},
	{
		name: "storage-hpa-healthy",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			nsWeb(t, c, ns, 3, "250m")
			nsHPA(t, c, ns, 3, nsAbleToScale,
				nsHPACond(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)"),
				nsHPACond(autoscalingv2.ScalingLimited, corev1.ConditionFalse, "DesiredWithinRange", "the desired count is within the acceptable range"))
			return []string{"hpa/web"}
		},
		healthy: true,
	},
}
