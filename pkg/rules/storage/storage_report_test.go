package storage_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/storage"
)

func TestClaimRules(t *testing.T) {
	fast := bundletest.StrPtr("fast-ssd")
	standard := bundletest.StorageClass("standard", "ebs.csi.aws.com", false, false)
	waitingFor := `Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`
	missingClass := bundletest.Claim("data", fast)
	noClass := bundletest.Claim("data", nil)
	wffcClaim := bundletest.Claim("data", bundletest.StrPtr("local-wffc"))
	extClaim := bundletest.Claim("data", bundletest.StrPtr("standard"))
	localClaim := bundletest.Claim("data", bundletest.StrPtr("local"))
	staticClaim := bundletest.Claim("data", bundletest.StrPtr(""), func(c *corev1.PersistentVolumeClaim) {
		c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
	})
	boundPV := func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "pv-data" }
	investigatetest.RunObjectCases(t, []investigatetest.ObjectCase{
		{
			Name: "storage class missing",
			Bundle: bundletest.ClaimBundle(missingClass, bundletest.WithClasses(standard), bundletest.MissingObject("StorageClass", "", "fast-ssd"),
				bundletest.WithEvents(bundletest.ClaimEvent(missingClass, "Warning", "ProvisioningFailed", `storageclass.storage.k8s.io "fast-ssd" not found`, -20*time.Minute))),
			Category: "PVC/Pending/StorageClassMissing",
			Culprit:  []string{`"fast-ssd"`, "StorageClass not found"},
			MinConf:  0.9,
		},
		{
			Name: "storage class missing known only from the event",
			Bundle: bundletest.ClaimBundle(missingClass, bundletest.WithClasses(standard),
				bundletest.WithEvents(bundletest.ClaimEvent(missingClass, "Warning", "ProvisioningFailed", `storageclass.storage.k8s.io "fast-ssd" not found`, -20*time.Minute))),
			Category: "PVC/Pending/StorageClassMissing",
		},
		{
			Name: "no default storage class",
			Bundle: bundletest.ClaimBundle(noClass, bundletest.WithClasses(standard),
				bundletest.WithEvents(bundletest.ClaimEvent(noClass, "Normal", "FailedBinding", "no persistent volumes available for this claim and no storage class is set", -20*time.Minute))),
			Category: "PVC/Pending/NoDefaultStorageClass",
			Culprit:  []string{"storageClassName (unset; no default StorageClass)"},
			MinConf:  0.9,
		},
		{
			Name: "storage classes unreadable: no claim about the default",
			Bundle: bundletest.ClaimBundle(noClass, func(b *bundle.Bundle) {
				b.Problems = append(b.Problems, bundle.Problem{What: "storage classes", Error: "forbidden", Forbidden: true})
			}),
			Degraded:    true,
			WantFinding: map[string]report.Verdict{"PVC/Pending/NoDefaultStorageClass": report.Inconclusive},
		},
		{
			Name: "unset class falls back to the default one",
			Bundle: bundletest.ClaimBundle(noClass, bundletest.WithClasses(bundletest.StorageClass("standard", "ebs.csi.aws.com", false, true)),
				bundletest.WithEvents(bundletest.ClaimEvent(noClass, "Normal", "ExternalProvisioning", waitingFor, -15*time.Minute))),
			Category: "PVC/Pending/NoProvisioner",
			Culprit:  []string{"ebs.csi.aws.com"},
		},
		{
			Name: "wait for first consumer is not a fault",
			Bundle: bundletest.ClaimBundle(wffcClaim, bundletest.WithClasses(bundletest.StorageClass("local-wffc", "rancher.io/local-path", true, false)),
				bundletest.WithEvents(bundletest.ClaimEvent(wffcClaim, "Normal", "WaitForFirstConsumer", "waiting for first consumer to be created before binding", -20*time.Minute))),
			Category: "PVC/Pending/WaitForFirstConsumer",
			Title:    []string{"not a fault"},
		},
		{
			Name: "wait for first consumer on a static class warns about the PV",
			Bundle: bundletest.ClaimBundle(wffcClaim, bundletest.WithClasses(bundletest.StorageClass("local-wffc", storage.NoProvisioner, true, false)),
				bundletest.WithEvents(bundletest.ClaimEvent(wffcClaim, "Normal", "WaitForFirstConsumer", "waiting for first consumer to be created before binding", -20*time.Minute))),
			Category: "PVC/Pending/WaitForFirstConsumer",
		},
		{
			Name: "wait for first consumer known from the event alone",
			Bundle: bundletest.ClaimBundle(wffcClaim,
				bundletest.WithEvents(bundletest.ClaimEvent(wffcClaim, "Normal", "WaitForFirstConsumer", "waiting for first consumer to be created before binding", -20*time.Minute))),
			Category: "PVC/Pending/WaitForFirstConsumer",
		},
		{
			Name:     "external provisioner silent",
			Bundle:   bundletest.ClaimBundle(extClaim, bundletest.WithClasses(standard), bundletest.WithEvents(bundletest.ClaimEvent(extClaim, "Normal", "ExternalProvisioning", waitingFor, -15*time.Minute))),
			Category: "PVC/Pending/NoProvisioner",
			Culprit:  []string{"provisioner ebs.csi.aws.com"},
		},
		{
			Name: "external provisioner silent, old controller wording, class unknown",
			Bundle: bundletest.ClaimBundle(extClaim, bundletest.WithEvents(bundletest.ClaimEvent(extClaim, "Normal", "ExternalProvisioning",
				`waiting for a volume to be created, either by external provisioner "ebs.csi.aws.com" or manually created by system administrator`, -15*time.Minute))),
			Category: "PVC/Pending/NoProvisioner",
			Culprit:  []string{"provisioner ebs.csi.aws.com"},
		},
		{
			Name: "provisioning in progress is no verdict",
			Bundle: bundletest.ClaimBundle(extClaim, bundletest.WithClasses(standard), bundletest.WithEvents(
				bundletest.ClaimEvent(extClaim, "Normal", "ExternalProvisioning", waitingFor, -15*time.Minute),
				bundletest.ClaimEvent(extClaim, "Normal", "Provisioning", `External provisioner is provisioning volume for claim "shop/data"`, -15*time.Minute))),
			Degraded:    true,
			WantFinding: map[string]report.Verdict{"PVC/Pending/Provisioning": report.Inconclusive},
		},
		{
			Name: "recent external provisioning is no verdict yet",
			Bundle: bundletest.ClaimBundle(extClaim, bundletest.WithClasses(standard), bundletest.WithEvents(
				bundletest.ClaimEvent(extClaim, "Normal", "ExternalProvisioning", waitingFor, -30*time.Second))),
			Degraded: true,
		},
		{
			Name: "provisioning failed",
			Bundle: bundletest.ClaimBundle(extClaim, bundletest.WithClasses(standard), bundletest.WithEvents(
				bundletest.ClaimEvent(extClaim, "Normal", "ExternalProvisioning", waitingFor, -15*time.Minute),
				bundletest.ClaimEvent(extClaim, "Warning", "ProvisioningFailed", `failed to provision volume with StorageClass "standard": rpc error: code = Internal desc = Could not create volume "pvc-1": UnauthorizedOperation: You are not authorized to perform this operation.`, -14*time.Minute))),
			Category: "PVC/Pending/ProvisioningFailed",
			Culprit:  []string{"UnauthorizedOperation"},
		},
		{
			Name: "no-provisioner class without a fitting PV",
			Bundle: bundletest.ClaimBundle(localClaim, bundletest.WithClasses(bundletest.StorageClass("local", storage.NoProvisioner, false, false)),
				bundletest.WithPVs(bundletest.PersistentVolume("local-1", "local", "5Gi", corev1.ReadWriteOnce), bundletest.PersistentVolume("other", "standard", "100Gi", corev1.ReadWriteOnce)),
				bundletest.WithEvents(bundletest.ClaimEvent(localClaim, "Warning", "ProvisioningFailed", "no volume plugin matched name: kubernetes.io/no-provisioner", -20*time.Minute))),
			Category: "PVC/Pending/NoMatchingPV",
			Culprit:  []string{"PV local-1 offers 5Gi, less than the 10Gi requested"},
			MinConf:  0.9,
		},
		{
			Name: "static binding with an access mode mismatch",
			Bundle: bundletest.ClaimBundle(staticClaim, bundletest.WithPVs(bundletest.PersistentVolume("nfs-1", "", "50Gi", corev1.ReadWriteOnce)),
				bundletest.WithEvents(bundletest.ClaimEvent(staticClaim, "Normal", "FailedBinding", "no persistent volumes available for this claim and no storage class is set", -20*time.Minute))),
			Category: "PVC/Pending/NoMatchingPV",
			Culprit:  []string{"does not offer access mode ReadWriteMany"},
		},
		{
			Name:     "claim lost",
			Bundle:   bundletest.ClaimBundle(bundletest.Claim("data", fast, boundPV, func(c *corev1.PersistentVolumeClaim) { c.Status.Phase = corev1.ClaimLost })),
			Category: "PVC/Lost",
			Culprit:  []string{"pv-data"},
		},
		{
			Name:     "named volume missing",
			Bundle:   bundletest.ClaimBundle(bundletest.Claim("data", fast, boundPV), bundletest.MissingObject("PersistentVolume", "", "pv-data")),
			Category: "PVC/Pending/VolumeMissing",
			Culprit:  []string{"pv-data"},
		},
		{
			Name: "named volume taken",
			Bundle: bundletest.ClaimBundle(bundletest.Claim("data", fast, boundPV), bundletest.WithPVs(func() *corev1.PersistentVolume {
				pv := bundletest.PersistentVolume("pv-data", "fast-ssd", "10Gi", corev1.ReadWriteOnce)
				pv.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "shop", Name: "old-data"}
				return pv
			}())),
			Category: "PVC/Pending/VolumeTaken",
			Culprit:  []string{"shop/old-data"},
		},
		{
			Name: "named volume mismatch",
			Bundle: bundletest.ClaimBundle(bundletest.Claim("data", fast, boundPV), bundletest.WithPVs(bundletest.PersistentVolume("pv-data", "fast-ssd", "1Gi", corev1.ReadWriteOnce)),
				bundletest.WithEvents(bundletest.ClaimEvent(bundletest.Claim("data", fast), "Warning", "VolumeMismatch", `Cannot bind to requested volume "pv-data": requested PV is too small`, -20*time.Minute))),
			Category: "PVC/Pending/VolumeMismatch",
			Culprit:  []string{"requested PV is too small"},
		},
		{
			Name:     "named volume, nothing known",
			Bundle:   bundletest.ClaimBundle(bundletest.Claim("data", fast, boundPV), bundletest.WithPVs(bundletest.PersistentVolume("pv-data", "fast-ssd", "10Gi", corev1.ReadWriteOnce))),
			Degraded: true,
		},
		{
			Name:        "bound claim is healthy",
			Bundle:      bundletest.ClaimBundle(bundletest.Claim("data", fast, boundPV, func(c *corev1.PersistentVolumeClaim) { c.Status.Phase = corev1.ClaimBound })),
			WantFinding: map[string]report.Verdict{"PVC/Pending": report.Refuted},
		},
		{
			Name: "pod with a claim whose class is missing: the claim is the deeper cause",
			Bundle: bundletest.PodBundle(bundletest.Pod("db-0", bundletest.MountsClaim("data", "data"),
				bundletest.Unscheduled(`0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`, "100m")),
				func(b *bundle.Bundle) { b.PVCs = append(b.PVCs, missingClass) }, bundletest.WithClasses(standard), bundletest.MissingObject("StorageClass", "", "fast-ssd")),
			Category: "PVC/Pending/StorageClassMissing",
			Culprit:  []string{"fast-ssd"},
		},
		{
			Name: "pod whose WaitForFirstConsumer claim has no PV to bind",
			Bundle: bundletest.PodBundle(bundletest.Pod("db-0", bundletest.MountsClaim("data", "data"),
				bundletest.Unscheduled(`0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`, "100m")),
				func(b *bundle.Bundle) { b.PVCs = append(b.PVCs, wffcClaim) }, bundletest.WithClasses(bundletest.StorageClass("local-wffc", storage.NoProvisioner, true, false))),
			Category: "PVC/Pending/NoMatchingPV",
			Culprit:  []string{"pvc/data"},
		},
		{
			Name: "pod whose WaitForFirstConsumer claim is provisionable: the scheduler speaks",
			Bundle: bundletest.PodBundle(bundletest.Pod("db-0", bundletest.MountsClaim("data", "data"),
				bundletest.Unscheduled(`0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.`, "64")),
				func(b *bundle.Bundle) { b.PVCs = append(b.PVCs, wffcClaim) }, bundletest.WithClasses(bundletest.StorageClass("local-wffc", "ebs.csi.aws.com", true, false))),
			Category: "Unschedulable/InsufficientCpu",
		},
	})
}

func TestVolumeRules(t *testing.T) {
	creating := bundletest.Waiting("ContainerCreating", "")
	cmVol := corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}}}}
	secretVol := corev1.Volume{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "api-tls"}}}
	nfsVol := corev1.Volume{Name: "shared", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.0.0.5", Path: "/exports/shared"}}}
	hostVol := corev1.Volume{Name: "sock", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/run/app.sock"}}}
	dataPVC := bundletest.Claim("data", bundletest.StrPtr("standard"), func(c *corev1.PersistentVolumeClaim) {
		c.Spec.VolumeName = "pvc-0a1b2c3d"
		c.Status.Phase = corev1.ClaimBound
	})
	withDataPVC := func(b *bundle.Bundle) { b.PVCs = append(b.PVCs, dataPVC) }
	cmPod := bundletest.Pod("api", bundletest.Volumes(cmVol), creating)
	investigatetest.RunObjectCases(t, []investigatetest.ObjectCase{
		{
			Name: "configmap missing",
			Bundle: bundletest.PodBundle(cmPod, bundletest.VolumeEvent(cmPod, "FailedMount", `MountVolume.SetUp failed for volume "config" : configmap "app-config" not found`),
				bundletest.MissingObject("ConfigMap", "shop", "app-config")),
			Category: "Volume/Mount/ConfigMapMissing",
			Culprit:  []string{"volume config", "configmap app-config (not found)"},
			MinConf:  0.9,
		},
		{
			Name: "configmap missing wins over the mount timeout",
			Bundle: bundletest.PodBundle(cmPod,
				bundletest.VolumeEvent(cmPod, "FailedMount", `Unable to attach or mount volumes: unmounted volumes=[config], unattached volumes=[config kube-api-access-5x7k2]: timed out waiting for the condition`),
				bundletest.VolumeEvent(cmPod, "FailedMount", `MountVolume.SetUp failed for volume "config" : configmap "app-config" not found`)),
			Category:    "Volume/Mount/ConfigMapMissing",
			WantFinding: map[string]report.Verdict{"Volume/Mount/Timeout": ""},
		},
		{
			Name:     "secret missing",
			Bundle:   bundletest.PodBundle(bundletest.Pod("api", bundletest.Volumes(secretVol), creating), bundletest.VolumeEvent(bundletest.Pod("api"), "FailedMount", `MountVolume.SetUp failed for volume "tls" : secret "api-tls" not found`)),
			Category: "Volume/Mount/SecretMissing",
			Culprit:  []string{"secret api-tls"},
		},
		{
			Name:     "configmap key missing",
			Bundle:   bundletest.PodBundle(cmPod, bundletest.VolumeEvent(cmPod, "FailedMount", `MountVolume.SetUp failed for volume "config" : configmap references non-existent config key: settings.yaml`)),
			Category: "Volume/Mount/KeyMissing",
			Culprit:  []string{"settings.yaml"},
		},
		{
			Name: "nfs server unreachable",
			Bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Volumes(nfsVol), creating), bundletest.VolumeEvent(bundletest.Pod("api"), "FailedMount",
				"MountVolume.SetUp failed for volume \"shared\" : mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t nfs 10.0.0.5:/exports/shared /var/lib/kubelet/pods/uid-api/volumes/kubernetes.io~nfs/shared\nOutput: mount.nfs: Connection timed out\n")),
			Category: "Volume/Mount/NFS",
			Culprit:  []string{"NFS 10.0.0.5:/exports/shared", "mount.nfs: Connection timed out"},
		},
		{
			Name: "hostPath type check",
			Bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Volumes(hostVol), creating), bundletest.VolumeEvent(bundletest.Pod("api"), "FailedMount",
				`MountVolume.SetUp failed for volume "sock" : hostPath type check failed: /run/app.sock is not a socket file`)),
			Category: "Volume/Mount/HostPath",
			Culprit:  []string{"hostPath /run/app.sock"},
		},
		{
			Name: "multi-attach names the claim",
			Bundle: bundletest.PodBundle(bundletest.Pod("db-0", bundletest.MountsClaim("data", "data"), creating), withDataPVC, bundletest.WithEvents(func() corev1.Event {
				e := bundletest.Event(bundletest.Pod("db-0"), "Warning", "FailedAttachVolume", `Multi-Attach error for volume "pvc-0a1b2c3d" Volume is already exclusively attached to one node and can't be attached to another`, 8)
				e.Source.Component = "attachdetach-controller"
				return e
			}())),
			Category: "Volume/Attach/MultiAttach",
			Culprit:  []string{"data (PVC data, PV pvc-0a1b2c3d)", "already exclusively attached"},
		},
		{
			Name: "attach failed",
			Bundle: bundletest.PodBundle(bundletest.Pod("db-0", bundletest.MountsClaim("data", "data"), creating), withDataPVC, bundletest.VolumeEvent(bundletest.Pod("db-0"), "FailedAttachVolume",
				`AttachVolume.Attach failed for volume "pvc-0a1b2c3d" : rpc error: code = Internal desc = volume is in zone us-east-1a, node is in us-east-1b`)),
			Category: "Volume/Attach/Failed",
			Culprit:  []string{"us-east-1a"},
		},
		{
			Name: "mount device failed",
			Bundle: bundletest.PodBundle(bundletest.Pod("db-0", bundletest.MountsClaim("data", "data"), creating), withDataPVC, bundletest.VolumeEvent(bundletest.Pod("db-0"), "FailedMount",
				`MountVolume.MountDevice failed for volume "pvc-0a1b2c3d" : rpc error: code = Internal desc = format of disk "/dev/xvdba" failed`)),
			Category: "Volume/Mount/Device",
		},
		{
			Name: "other setup failure",
			Bundle: bundletest.PodBundle(bundletest.Pod("db-0", bundletest.MountsClaim("data", "data"), creating), withDataPVC, bundletest.VolumeEvent(bundletest.Pod("db-0"), "FailedMount",
				`MountVolume.SetUp failed for volume "pvc-0a1b2c3d" : rpc error: code = NotFound desc = volume not found`)),
			Category: "Volume/Mount/SetUpFailed",
		},
		{
			Name: "mount timeout alone names the volume and its claim",
			Bundle: bundletest.PodBundle(bundletest.Pod("db-0", bundletest.MountsClaim("data", "data"), creating), withDataPVC, bundletest.VolumeEvent(bundletest.Pod("db-0"), "FailedMount",
				`Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[]: context deadline exceeded`)),
			Category: "Volume/Mount/Timeout",
			Culprit:  []string{"data (PVC data, PV pvc-0a1b2c3d)"},
			MaxConf:  0.6,
		},
		{
			Name: "claim missing outranks the scheduler",
			Bundle: bundletest.PodBundle(bundletest.Pod("db-0", bundletest.MountsClaim("data", "data-db-0"),
				bundletest.Unscheduled(`0/1 nodes are available: persistentvolumeclaim "data-db-0" not found. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`, "100m")),
				bundletest.VolumeEvent(bundletest.Pod("db-0"), "FailedScheduling", `0/1 nodes are available: persistentvolumeclaim "data-db-0" not found. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`)),
			Category: "Volume/ClaimMissing",
			Culprit:  []string{"data-db-0"},
		},
	})

	// A pod that has started since: history, not the present.
	running := bundletest.Pod("api", bundletest.Volumes(cmVol), bundletest.Healthy)
	r := investigate.Investigate(bundletest.PodBundle(running, bundletest.VolumeEvent(running, "FailedMount", `MountVolume.SetUp failed for volume "config" : configmap "app-config" not found`)), investigate.Options{Now: bundletest.Now})
	if strings.HasPrefix(r.RootCause.Category, "Volume/") {
		t.Errorf("a running pod got past its mount failure; it is no root cause: %q", r.Title)
	}
}
