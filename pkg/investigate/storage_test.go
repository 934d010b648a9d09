package investigate

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/autoscaling"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/storage"
)

func strPtr(s string) *string { return &s }

func claim(name string, class *string, mutate ...func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-pvc-" + name), CreationTimestamp: ts(-20 * time.Minute)},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: class,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
	}
	for _, m := range mutate {
		m(c)
	}
	return c
}

func storageClass(name, provisioner string, wffc, isDefault bool) *storagev1.StorageClass {
	mode := storagev1.VolumeBindingImmediate
	if wffc {
		mode = storagev1.VolumeBindingWaitForFirstConsumer
	}
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &mode}
	if isDefault {
		sc.Annotations = map[string]string{storage.AnnDefaultStorageClass: "true"}
	}
	return sc
}

func persistentVolume(name, class, size string, modes ...corev1.PersistentVolumeAccessMode) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{StorageClassName: class, AccessModes: modes,
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable},
	}
}

// claimEvent is an event of the persistentvolume controller about a claim.
func claimEvent(pvc *corev1.PersistentVolumeClaim, typ, reason, msg string, first time.Duration) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: pvc.Name + "." + strings.ToLower(reason), Namespace: pvc.Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", Name: pvc.Name, Namespace: pvc.Namespace, UID: pvc.UID},
		Type:           typ, Reason: reason, Message: msg, Count: 4,
		FirstTimestamp: ts(first), LastTimestamp: ts(-time.Minute),
		Source: corev1.EventSource{Component: "persistentvolume-controller"},
	}
}

func claimBundle(pvc *corev1.PersistentVolumeClaim, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target: fault.Resource{APIVersion: "v1", Kind: "PersistentVolumeClaim", Name: pvc.Name, Namespace: pvc.Namespace, UID: string(pvc.UID)},
		Object: rawObject(pvc, "v1", "PersistentVolumeClaim"),
		PVCs:   []*corev1.PersistentVolumeClaim{pvc},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func withClasses(scs ...*storagev1.StorageClass) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.StorageClasses = append(b.StorageClasses, scs...) }
}

func withPVs(pvs ...*corev1.PersistentVolume) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.PVs = append(b.PVs, pvs...) }
}

func missingObject(kind, ns, name string) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		b.Missing = append(b.Missing, bundle.MissingRef{Kind: kind, Namespace: ns, Name: name, ReferencedBy: "test"})
	}
}

func mountsClaim(volume, claimName string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: volume,
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName}}})
	}
}

func TestClaimRules(t *testing.T) {
	fast := strPtr("fast-ssd")
	standard := storageClass("standard", "ebs.csi.aws.com", false, false)
	waitingFor := `Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`
	missingClass := claim("data", fast)
	noClass := claim("data", nil)
	wffcClaim := claim("data", strPtr("local-wffc"))
	extClaim := claim("data", strPtr("standard"))
	localClaim := claim("data", strPtr("local"))
	staticClaim := claim("data", strPtr(""), func(c *corev1.PersistentVolumeClaim) {
		c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
	})
	boundPV := func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "pv-data" }
	runNSCases(t, []nsCase{
		{
			name: "storage class missing",
			bundle: claimBundle(missingClass, withClasses(standard), missingObject("StorageClass", "", "fast-ssd"),
				withEvents(claimEvent(missingClass, "Warning", "ProvisioningFailed", `storageclass.storage.k8s.io "fast-ssd" not found`, -20*time.Minute))),
			category: "PVC/Pending/StorageClassMissing",
			culprit:  []string{`"fast-ssd"`, "StorageClass not found"},
			minConf:  0.9,
		},
		{
			name: "storage class missing known only from the event",
			bundle: claimBundle(missingClass, withClasses(standard),
				withEvents(claimEvent(missingClass, "Warning", "ProvisioningFailed", `storageclass.storage.k8s.io "fast-ssd" not found`, -20*time.Minute))),
			category: "PVC/Pending/StorageClassMissing",
		},
		{
			name: "no default storage class",
			bundle: claimBundle(noClass, withClasses(standard),
				withEvents(claimEvent(noClass, "Normal", "FailedBinding", "no persistent volumes available for this claim and no storage class is set", -20*time.Minute))),
			category: "PVC/Pending/NoDefaultStorageClass",
			culprit:  []string{"storageClassName (unset; no default StorageClass)"},
			minConf:  0.9,
		},
		{
			name: "storage classes unreadable: no claim about the default",
			bundle: claimBundle(noClass, func(b *bundle.Bundle) {
				b.Problems = append(b.Problems, bundle.Problem{What: "storage classes", Error: "forbidden", Forbidden: true})
			}),
			degraded:    true,
			wantFinding: map[string]report.Verdict{"PVC/Pending/NoDefaultStorageClass": report.Inconclusive},
		},
		{
			name: "unset class falls back to the default one",
			bundle: claimBundle(noClass, withClasses(storageClass("standard", "ebs.csi.aws.com", false, true)),
				withEvents(claimEvent(noClass, "Normal", "ExternalProvisioning", waitingFor, -15*time.Minute))),
			category: "PVC/Pending/NoProvisioner",
			culprit:  []string{"ebs.csi.aws.com"},
		},
		{
			name: "wait for first consumer is not a fault",
			bundle: claimBundle(wffcClaim, withClasses(storageClass("local-wffc", "rancher.io/local-path", true, false)),
				withEvents(claimEvent(wffcClaim, "Normal", "WaitForFirstConsumer", "waiting for first consumer to be created before binding", -20*time.Minute))),
			category: "PVC/Pending/WaitForFirstConsumer",
			title:    []string{"not a fault"},
		},
		{
			name: "wait for first consumer on a static class warns about the PV",
			bundle: claimBundle(wffcClaim, withClasses(storageClass("local-wffc", storage.NoProvisioner, true, false)),
				withEvents(claimEvent(wffcClaim, "Normal", "WaitForFirstConsumer", "waiting for first consumer to be created before binding", -20*time.Minute))),
			category: "PVC/Pending/WaitForFirstConsumer",
		},
		{
			name: "wait for first consumer known from the event alone",
			bundle: claimBundle(wffcClaim,
				withEvents(claimEvent(wffcClaim, "Normal", "WaitForFirstConsumer", "waiting for first consumer to be created before binding", -20*time.Minute))),
			category: "PVC/Pending/WaitForFirstConsumer",
		},
		{
			name:     "external provisioner silent",
			bundle:   claimBundle(extClaim, withClasses(standard), withEvents(claimEvent(extClaim, "Normal", "ExternalProvisioning", waitingFor, -15*time.Minute))),
			category: "PVC/Pending/NoProvisioner",
			culprit:  []string{"provisioner ebs.csi.aws.com"},
		},
		{
			name: "external provisioner silent, old controller wording, class unknown",
			bundle: claimBundle(extClaim, withEvents(claimEvent(extClaim, "Normal", "ExternalProvisioning",
				`waiting for a volume to be created, either by external provisioner "ebs.csi.aws.com" or manually created by system administrator`, -15*time.Minute))),
			category: "PVC/Pending/NoProvisioner",
			culprit:  []string{"provisioner ebs.csi.aws.com"},
		},
		{
			name: "provisioning in progress is no verdict",
			bundle: claimBundle(extClaim, withClasses(standard), withEvents(
				claimEvent(extClaim, "Normal", "ExternalProvisioning", waitingFor, -15*time.Minute),
				claimEvent(extClaim, "Normal", "Provisioning", `External provisioner is provisioning volume for claim "shop/data"`, -15*time.Minute))),
			degraded:    true,
			wantFinding: map[string]report.Verdict{"PVC/Pending/Provisioning": report.Inconclusive},
		},
		{
			name: "recent external provisioning is no verdict yet",
			bundle: claimBundle(extClaim, withClasses(standard), withEvents(
				claimEvent(extClaim, "Normal", "ExternalProvisioning", waitingFor, -30*time.Second))),
			degraded: true,
		},
		{
			name: "provisioning failed",
			bundle: claimBundle(extClaim, withClasses(standard), withEvents(
				claimEvent(extClaim, "Normal", "ExternalProvisioning", waitingFor, -15*time.Minute),
				claimEvent(extClaim, "Warning", "ProvisioningFailed", `failed to provision volume with StorageClass "standard": rpc error: code = Internal desc = Could not create volume "pvc-1": UnauthorizedOperation: You are not authorized to perform this operation.`, -14*time.Minute))),
			category: "PVC/Pending/ProvisioningFailed",
			culprit:  []string{"UnauthorizedOperation"},
		},
		{
			name: "no-provisioner class without a fitting PV",
			bundle: claimBundle(localClaim, withClasses(storageClass("local", storage.NoProvisioner, false, false)),
				withPVs(persistentVolume("local-1", "local", "5Gi", corev1.ReadWriteOnce), persistentVolume("other", "standard", "100Gi", corev1.ReadWriteOnce)),
				withEvents(claimEvent(localClaim, "Warning", "ProvisioningFailed", "no volume plugin matched name: kubernetes.io/no-provisioner", -20*time.Minute))),
			category: "PVC/Pending/NoMatchingPV",
			culprit:  []string{"PV local-1 offers 5Gi, less than the 10Gi requested"},
			minConf:  0.9,
		},
		{
			name: "static binding with an access mode mismatch",
			bundle: claimBundle(staticClaim, withPVs(persistentVolume("nfs-1", "", "50Gi", corev1.ReadWriteOnce)),
				withEvents(claimEvent(staticClaim, "Normal", "FailedBinding", "no persistent volumes available for this claim and no storage class is set", -20*time.Minute))),
			category: "PVC/Pending/NoMatchingPV",
			culprit:  []string{"does not offer access mode ReadWriteMany"},
		},
		{
			name:     "claim lost",
			bundle:   claimBundle(claim("data", fast, boundPV, func(c *corev1.PersistentVolumeClaim) { c.Status.Phase = corev1.ClaimLost })),
			category: "PVC/Lost",
			culprit:  []string{"pv-data"},
		},
		{
			name:     "named volume missing",
			bundle:   claimBundle(claim("data", fast, boundPV), missingObject("PersistentVolume", "", "pv-data")),
			category: "PVC/Pending/VolumeMissing",
			culprit:  []string{"pv-data"},
		},
		{
			name: "named volume taken",
			bundle: claimBundle(claim("data", fast, boundPV), withPVs(func() *corev1.PersistentVolume {
				pv := persistentVolume("pv-data", "fast-ssd", "10Gi", corev1.ReadWriteOnce)
				pv.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "shop", Name: "old-data"}
				return pv
			}())),
			category: "PVC/Pending/VolumeTaken",
			culprit:  []string{"shop/old-data"},
		},
		{
			name: "named volume mismatch",
			bundle: claimBundle(claim("data", fast, boundPV), withPVs(persistentVolume("pv-data", "fast-ssd", "1Gi", corev1.ReadWriteOnce)),
				withEvents(claimEvent(claim("data", fast), "Warning", "VolumeMismatch", `Cannot bind to requested volume "pv-data": requested PV is too small`, -20*time.Minute))),
			category: "PVC/Pending/VolumeMismatch",
			culprit:  []string{"requested PV is too small"},
		},
		{
			name:     "named volume, nothing known",
			bundle:   claimBundle(claim("data", fast, boundPV), withPVs(persistentVolume("pv-data", "fast-ssd", "10Gi", corev1.ReadWriteOnce))),
			degraded: true,
		},
		{
			name:        "bound claim is healthy",
			bundle:      claimBundle(claim("data", fast, boundPV, func(c *corev1.PersistentVolumeClaim) { c.Status.Phase = corev1.ClaimBound })),
			wantFinding: map[string]report.Verdict{"PVC/Pending": report.Refuted},
		},
		{
			name: "pod with a claim whose class is missing: the claim is the deeper cause",
			bundle: podBundle(pod("db-0", mountsClaim("data", "data"),
				unscheduled(`0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`, "100m")),
				func(b *bundle.Bundle) { b.PVCs = append(b.PVCs, missingClass) }, withClasses(standard), missingObject("StorageClass", "", "fast-ssd")),
			category: "PVC/Pending/StorageClassMissing",
			culprit:  []string{"fast-ssd"},
		},
		{
			name: "pod whose WaitForFirstConsumer claim has no PV to bind",
			bundle: podBundle(pod("db-0", mountsClaim("data", "data"),
				unscheduled(`0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`, "100m")),
				func(b *bundle.Bundle) { b.PVCs = append(b.PVCs, wffcClaim) }, withClasses(storageClass("local-wffc", storage.NoProvisioner, true, false))),
			category: "PVC/Pending/NoMatchingPV",
			culprit:  []string{"pvc/data"},
		},
		{
			name: "pod whose WaitForFirstConsumer claim is provisionable: the scheduler speaks",
			bundle: podBundle(pod("db-0", mountsClaim("data", "data"),
				unscheduled(`0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.`, "64")),
				func(b *bundle.Bundle) { b.PVCs = append(b.PVCs, wffcClaim) }, withClasses(storageClass("local-wffc", "ebs.csi.aws.com", true, false))),
			category: "Unschedulable/InsufficientCpu",
		},
	})
}

// volumeEvent is a kubelet (or attach-detach controller, or scheduler) event about a pod.
func volumeEvent(p *corev1.Pod, reason, msg string) func(*bundle.Bundle) {
	return withEvents(event(p, "Warning", reason, msg, 12))
}

func volumes(vs ...corev1.Volume) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Volumes = append(p.Spec.Volumes, vs...) }
}

func TestVolumeRules(t *testing.T) {
	creating := waiting("ContainerCreating", "")
	cmVol := corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}}}}
	secretVol := corev1.Volume{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "api-tls"}}}
	nfsVol := corev1.Volume{Name: "shared", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.0.0.5", Path: "/exports/shared"}}}
	hostVol := corev1.Volume{Name: "sock", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/run/app.sock"}}}
	dataPVC := claim("data", strPtr("standard"), func(c *corev1.PersistentVolumeClaim) {
		c.Spec.VolumeName = "pvc-0a1b2c3d"
		c.Status.Phase = corev1.ClaimBound
	})
	withDataPVC := func(b *bundle.Bundle) { b.PVCs = append(b.PVCs, dataPVC) }
	cmPod := pod("api", volumes(cmVol), creating)
	runNSCases(t, []nsCase{
		{
			name: "configmap missing",
			bundle: podBundle(cmPod, volumeEvent(cmPod, "FailedMount", `MountVolume.SetUp failed for volume "config" : configmap "app-config" not found`),
				missingObject("ConfigMap", "shop", "app-config")),
			category: "Volume/Mount/ConfigMapMissing",
			culprit:  []string{"volume config", "configmap app-config (not found)"},
			minConf:  0.9,
		},
		{
			name: "configmap missing wins over the mount timeout",
			bundle: podBundle(cmPod,
				volumeEvent(cmPod, "FailedMount", `Unable to attach or mount volumes: unmounted volumes=[config], unattached volumes=[config kube-api-access-5x7k2]: timed out waiting for the condition`),
				volumeEvent(cmPod, "FailedMount", `MountVolume.SetUp failed for volume "config" : configmap "app-config" not found`)),
			category:    "Volume/Mount/ConfigMapMissing",
			wantFinding: map[string]report.Verdict{"Volume/Mount/Timeout": ""},
		},
		{
			name:     "secret missing",
			bundle:   podBundle(pod("api", volumes(secretVol), creating), volumeEvent(pod("api"), "FailedMount", `MountVolume.SetUp failed for volume "tls" : secret "api-tls" not found`)),
			category: "Volume/Mount/SecretMissing",
			culprit:  []string{"secret api-tls"},
		},
		{
			name:     "configmap key missing",
			bundle:   podBundle(cmPod, volumeEvent(cmPod, "FailedMount", `MountVolume.SetUp failed for volume "config" : configmap references non-existent config key: settings.yaml`)),
			category: "Volume/Mount/KeyMissing",
			culprit:  []string{"settings.yaml"},
		},
		{
			name: "nfs server unreachable",
			bundle: podBundle(pod("api", volumes(nfsVol), creating), volumeEvent(pod("api"), "FailedMount",
				"MountVolume.SetUp failed for volume \"shared\" : mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t nfs 10.0.0.5:/exports/shared /var/lib/kubelet/pods/uid-api/volumes/kubernetes.io~nfs/shared\nOutput: mount.nfs: Connection timed out\n")),
			category: "Volume/Mount/NFS",
			culprit:  []string{"NFS 10.0.0.5:/exports/shared", "mount.nfs: Connection timed out"},
		},
		{
			name: "hostPath type check",
			bundle: podBundle(pod("api", volumes(hostVol), creating), volumeEvent(pod("api"), "FailedMount",
				`MountVolume.SetUp failed for volume "sock" : hostPath type check failed: /run/app.sock is not a socket file`)),
			category: "Volume/Mount/HostPath",
			culprit:  []string{"hostPath /run/app.sock"},
		},
		{
			name: "multi-attach names the claim",
			bundle: podBundle(pod("db-0", mountsClaim("data", "data"), creating), withDataPVC, withEvents(func() corev1.Event {
				e := event(pod("db-0"), "Warning", "FailedAttachVolume", `Multi-Attach error for volume "pvc-0a1b2c3d" Volume is already exclusively attached to one node and can't be attached to another`, 8)
				e.Source.Component = "attachdetach-controller"
				return e
			}())),
			category: "Volume/Attach/MultiAttach",
			culprit:  []string{"data (PVC data, PV pvc-0a1b2c3d)", "already exclusively attached"},
		},
		{
			name: "attach failed",
			bundle: podBundle(pod("db-0", mountsClaim("data", "data"), creating), withDataPVC, volumeEvent(pod("db-0"), "FailedAttachVolume",
				`AttachVolume.Attach failed for volume "pvc-0a1b2c3d" : rpc error: code = Internal desc = volume is in zone us-east-1a, node is in us-east-1b`)),
			category: "Volume/Attach/Failed",
			culprit:  []string{"us-east-1a"},
		},
		{
			name: "mount device failed",
			bundle: podBundle(pod("db-0", mountsClaim("data", "data"), creating), withDataPVC, volumeEvent(pod("db-0"), "FailedMount",
				`MountVolume.MountDevice failed for volume "pvc-0a1b2c3d" : rpc error: code = Internal desc = format of disk "/dev/xvdba" failed`)),
			category: "Volume/Mount/Device",
		},
		{
			name: "other setup failure",
			bundle: podBundle(pod("db-0", mountsClaim("data", "data"), creating), withDataPVC, volumeEvent(pod("db-0"), "FailedMount",
				`MountVolume.SetUp failed for volume "pvc-0a1b2c3d" : rpc error: code = NotFound desc = volume not found`)),
			category: "Volume/Mount/SetUpFailed",
		},
		{
			name: "mount timeout alone names the volume and its claim",
			bundle: podBundle(pod("db-0", mountsClaim("data", "data"), creating), withDataPVC, volumeEvent(pod("db-0"), "FailedMount",
				`Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[]: context deadline exceeded`)),
			category: "Volume/Mount/Timeout",
			culprit:  []string{"data (PVC data, PV pvc-0a1b2c3d)"},
			maxConf:  0.6,
		},
		{
			name: "claim missing outranks the scheduler",
			bundle: podBundle(pod("db-0", mountsClaim("data", "data-db-0"),
				unscheduled(`0/1 nodes are available: persistentvolumeclaim "data-db-0" not found. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`, "100m")),
				volumeEvent(pod("db-0"), "FailedScheduling", `0/1 nodes are available: persistentvolumeclaim "data-db-0" not found. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`)),
			category: "Volume/ClaimMissing",
			culprit:  []string{"data-db-0"},
		},
	})

	// A pod that has started since: history, not the present.
	running := pod("api", volumes(cmVol), healthy)
	r := Investigate(podBundle(running, volumeEvent(running, "FailedMount", `MountVolume.SetUp failed for volume "config" : configmap "app-config" not found`)), Options{Now: now})
	if strings.HasPrefix(r.RootCause.Category, "Volume/") {
		t.Errorf("a running pod got past its mount failure; it is no root cause: %q", r.Title)
	}
}

func hpa(name string, conds []autoscalingv2.HorizontalPodAutoscalerCondition, mutate ...func(*autoscalingv2.HorizontalPodAutoscaler)) *autoscalingv2.HorizontalPodAutoscaler {
	minR, util := int32(2), int32(70)
	h := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-hpa-" + name)},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    &minR, MaxReplicas: 10,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &util}}}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 2, Conditions: conds},
	}
	for _, m := range mutate {
		m(h)
	}
	return h
}

func hpaCond(typ autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, msg string) autoscalingv2.HorizontalPodAutoscalerCondition {
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: ts(-10 * time.Minute)}
}

func webDeployment(requests corev1.ResourceList) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-deploy-web"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "app", Image: "shop/web:1.0", Resources: corev1.ResourceRequirements{Requests: requests}},
			{Name: "proxy", Image: "envoy:1.30"},
		}}}},
	}
}

func hpaBundle(h *autoscalingv2.HorizontalPodAutoscaler, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target:      fault.Resource{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler", Name: h.Name, Namespace: h.Namespace, UID: string(h.UID)},
		Object:      rawObject(h, "autoscaling/v2", "HorizontalPodAutoscaler"),
		HPAs:        []*autoscalingv2.HorizontalPodAutoscaler{h},
		Deployments: []*appsv1.Deployment{webDeployment(nil)},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func hpaEvent(h *autoscalingv2.HorizontalPodAutoscaler, reason, msg string) func(*bundle.Bundle) {
	return withEvents(corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: h.Name + "." + strings.ToLower(reason), Namespace: h.Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "HorizontalPodAutoscaler", Name: h.Name, Namespace: h.Namespace, UID: h.UID},
		Type:           "Warning", Reason: reason, Message: msg, Count: 30, FirstTimestamp: ts(-30 * time.Minute), LastTimestamp: ts(-time.Minute),
		Source: corev1.EventSource{Component: "horizontal-pod-autoscaler"},
	})
}

func TestHPARules(t *testing.T) {
	able := hpaCond(autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")
	inactive := func(reason, msg string) []autoscalingv2.HorizontalPodAutoscalerCondition {
		return []autoscalingv2.HorizontalPodAutoscalerCondition{able, hpaCond(autoscalingv2.ScalingActive, corev1.ConditionFalse, reason, msg)}
	}
	active := hpaCond(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)")
	missingReq := hpa("web", inactive("FailedGetResourceMetric", "the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container app of Pod web-7d9f-abcde"))
	limited := func(reason, msg string) *autoscalingv2.HorizontalPodAutoscaler {
		util := int32(180)
		return hpa("web", []autoscalingv2.HorizontalPodAutoscalerCondition{able, active,
			hpaCond(autoscalingv2.ScalingLimited, corev1.ConditionTrue, reason, msg)}, func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Status.CurrentReplicas = 10
			h.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
				Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: &util}}}}
		})
	}
	runNSCases(t, []nsCase{
		{
			name: "missing cpu request names the container",
			bundle: hpaBundle(missingReq, hpaEvent(missingReq, "FailedGetResourceMetric", "failed to get cpu utilization: missing request for cpu in container app of Pod web-7d9f-abcde"),
				hpaEvent(missingReq, "FailedComputeMetricsReplicas", "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu in container app of Pod web-7d9f-abcde")),
			category: "HPA/MissingRequest",
			culprit:  []string{"deployment/web container app resources.requests.cpu (unset)"},
			minConf:  0.95,
		},
		{
			name: "missing request on a StatefulSet",
			bundle: hpaBundle(hpa("db", missingReq.Status.Conditions, func(h *autoscalingv2.HorizontalPodAutoscaler) {
				h.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db"}
			}), func(b *bundle.Bundle) {
				b.Deployments = nil
				b.StatefulSets = []*appsv1.StatefulSet{{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop"},
					Spec: appsv1.StatefulSetSpec{Template: webDeployment(nil).Spec.Template}}}
			}),
			category: "HPA/MissingRequest",
			culprit:  []string{"statefulset/db container app"},
		},
		{
			name:     "missing request without the workload in the bundle",
			bundle:   hpaBundle(missingReq, func(b *bundle.Bundle) { b.Deployments = nil }),
			category: "HPA/MissingRequest",
			culprit:  []string{"container app"},
		},
		{
			name: "metrics-server missing",
			bundle: hpaBundle(hpa("web", inactive("FailedGetResourceMetric",
				"the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"))),
			category: "HPA/MetricsAPIUnavailable",
			culprit:  []string{"metrics.k8s.io", "could not find the requested resource"},
		},
		{
			name: "no metrics for the pods",
			bundle: hpaBundle(hpa("web", inactive("FailedGetResourceMetric",
				"the HPA was unable to compute the replica count: failed to get cpu utilization: did not receive metrics for targeted pods (pods might be unready)"))),
			category: "HPA/NoMetrics",
			maxConf:  0.75,
		},
		{
			name: "custom metrics adapter missing",
			bundle: hpaBundle(hpa("web", inactive("FailedGetPodsMetric",
				"the HPA was unable to compute the replica count: unable to get metric http_requests_per_second: unable to fetch metrics from custom metrics API: the server could not find the metric http_requests_per_second for pods"))),
			category: "HPA/CustomMetricsUnavailable",
			culprit:  []string{"http_requests_per_second"},
		},
		{
			name:     "unknown metric failure stays generic",
			bundle:   hpaBundle(hpa("web", inactive("InvalidMetricSourceType", "the HPA was unable to compute the replica count: unknown metric source type \"Foo\""))),
			category: "HPA/MetricsFailed",
			maxConf:  0.65,
		},
		{
			name: "scale target missing",
			bundle: hpaBundle(hpa("web", []autoscalingv2.HorizontalPodAutoscalerCondition{hpaCond(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale",
				`the HPA controller was unable to get the target's current scale: deployments/scale.apps "web" not found`)}), func(b *bundle.Bundle) { b.Deployments = nil },
				missingObject("Deployment", "shop", "web")),
			category: "HPA/ScaleTargetMissing",
			culprit:  []string{"deployment/web"},
			minConf:  0.95,
		},
		{
			name: "scale update rejected",
			bundle: hpaBundle(hpa("web", []autoscalingv2.HorizontalPodAutoscalerCondition{hpaCond(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale",
				`the HPA controller was unable to update the target scale: admission webhook "policy.example.com" denied the request: replicas may not exceed 5`)})),
			category: "HPA/FailedUpdateScale",
			culprit:  []string{"admission webhook"},
		},
		{
			name:     "at maxReplicas is a limit, not a fault",
			bundle:   hpaBundle(limited("TooManyReplicas", "the desired replica count is more than the maximum replica count")),
			category: "HPA/Limited/MaxReplicas",
			title:    []string{"not a fault", "maxReplicas 10"},
		},
		{
			name:     "at minReplicas is a floor, not a fault",
			bundle:   hpaBundle(limited("TooFewReplicas", "the desired replica count is less than the minimum replica count")),
			category: "HPA/Limited/MinReplicas",
			title:    []string{"not a fault"},
		},
		{
			name:     "rate limited is not a fault",
			bundle:   hpaBundle(limited("ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")),
			category: "HPA/Limited/Rate",
		},
		{
			name:     "target scaled to zero",
			bundle:   hpaBundle(hpa("web", inactive("ScalingDisabled", "scaling is disabled since the replica count of the target is zero"))),
			category: "HPA/ScalingDisabled",
			title:    []string{"not a fault"},
		},
		{
			name: "healthy HPA",
			bundle: hpaBundle(hpa("web", []autoscalingv2.HorizontalPodAutoscalerCondition{able, active,
				hpaCond(autoscalingv2.ScalingLimited, corev1.ConditionFalse, "DesiredWithinRange", "the desired count is within the acceptable range")})),
			wantFinding: map[string]report.Verdict{"HPA/MetricsFailed": report.Refuted},
		},
	})

	// A workload target: its HPA's fault is context (depth 0), its limits are not reported.
	dep := webDeployment(nil)
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "shop", UID: string(dep.UID)},
		Deployments: []*appsv1.Deployment{dep}, HPAs: []*autoscalingv2.HorizontalPodAutoscaler{missingReq, limited("TooManyReplicas", "")}}
	c := testPass(b)
	fs := autoscaling.HPA.Check(c)
	if len(fs) != 1 || fs[0].Category != "HPA/MissingRequest" || fs[0].Strength != rule.Symptom {
		t.Fatalf("workload target: got %+v, want one depth-0 HPA/MissingRequest", fs)
	}
	if !strings.Contains(fs[0].Contributing[0], "app, proxy") {
		t.Errorf("every container lacking the request should be named: %v", fs[0].Contributing)
	}
}
