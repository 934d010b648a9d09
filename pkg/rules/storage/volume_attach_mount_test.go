package storage

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestVolumeAttachMount: the kubelet's FailedMount event for a ConfigMap
// volume whose ConfigMap does not exist holds the pod in ContainerCreating;
// the finding names the volume and the ConfigMap.
func TestVolumeAttachMount(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
		Spec: corev1.PodSpec{NodeName: "worker-1", Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}},
			Volumes: []corev1.Volume{{Name: "settings", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-settings"}}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}}}
	e := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "api.1", Namespace: "shop"}, Type: corev1.EventTypeWarning, Reason: "FailedMount", Count: 7,
		Message:        `MountVolume.SetUp failed for volume "settings" : configmap "app-settings" not found`,
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"},
		LastTimestamp:  metav1.NewTime(now.Add(-30 * time.Second))}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}, Events: []corev1.Event{e}}

	f := ruletest.Root(ruletest.Run(VolumeAttachMount, b, now))
	if f == nil || f.Category != rule.Volume.Sub("Mount", "ConfigMapMissing") || !strings.Contains(f.Culprit, "app-settings") || f.Layer != rule.InfrastructureLayer {
		t.Fatalf("finding %+v", f)
	}
	b.Events = nil
	if f := ruletest.Root(ruletest.Run(VolumeAttachMount, b, now)); f != nil {
		t.Errorf("without the event: %+v", f)
	}

	// A device whose filesystem is not the volume's fsType: the reason is on
	// the mount's Output line, not the event's first line.
	e.Message = "MountVolume.MountDevice failed for volume \"pvc-f88b\" : mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t xfs -o defaults /dev/nvme1n1 /var/lib/kubelet/plugins/kubernetes.io/csi/ebs.csi.aws.com/8f3c/globalmount\n" +
		"Output: mount: /var/lib/kubelet/plugins/kubernetes.io/csi/ebs.csi.aws.com/8f3c/globalmount: wrong fs type, bad option, bad superblock on /dev/nvme1n1, missing codepage or helper program, or other error.\n"
	b.Events = []corev1.Event{e}
	f = ruletest.Root(ruletest.Run(VolumeAttachMount, b, now))
	if f == nil || f.Category != rule.Volume.Sub("Mount", "Filesystem") || !strings.Contains(f.Title, "wrong fs type") {
		t.Fatalf("wrong fs type: finding %+v", f)
	}

	// mount(8) without the NFS helper (longhorn/longhorn#1799): the node
	// lacks the client, no server was asked.
	e.Message = "MountVolume.SetUp failed for volume \"pvc-b3f8\" : mount failed: exit status 32\nMounting command: systemd-run\nMounting arguments: --description=Kubernetes transient mount for /var/lib/kubelet/pods/ee57/volumes/kubernetes.io~nfs/pvc-b3f8 --scope -- mount -t nfs -o vers=4.1 10.43.7.96:/pvc-b3f8 /var/lib/kubelet/pods/ee57/volumes/kubernetes.io~nfs/pvc-b3f8\n" +
		"Output: Running scope as unit: run-r3a1.scope\nmount: /var/lib/kubelet/pods/ee57/volumes/kubernetes.io~nfs/pvc-b3f8: bad option; for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program.\n"
	b.Events = []corev1.Event{e}
	f = ruletest.Root(ruletest.Run(VolumeAttachMount, b, now))
	if f == nil || f.Category != rule.Volume.Sub("Mount", "HelperMissing") || !strings.Contains(f.Title, "mount.nfs") {
		t.Fatalf("mount helper missing: finding %+v", f)
	}
}
