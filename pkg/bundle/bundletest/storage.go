package bundletest

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

func StrPtr(s string) *string { return &s }

func Claim(name string, class *string, mutate ...func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-pvc-" + name), CreationTimestamp: TS(-20 * time.Minute)},
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

func StorageClass(name, provisioner string, wffc, isDefault bool) *storagev1.StorageClass {
	mode := storagev1.VolumeBindingImmediate
	if wffc {
		mode = storagev1.VolumeBindingWaitForFirstConsumer
	}
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &mode}
	if isDefault {
		sc.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
	}
	return sc
}

func PersistentVolume(name, class, size string, modes ...corev1.PersistentVolumeAccessMode) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{StorageClassName: class, AccessModes: modes,
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable},
	}
}

// ClaimEvent is an event of the persistentvolume controller about a claim.
func ClaimEvent(pvc *corev1.PersistentVolumeClaim, typ, reason, msg string, first time.Duration) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: pvc.Name + "." + strings.ToLower(reason), Namespace: pvc.Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", Name: pvc.Name, Namespace: pvc.Namespace, UID: pvc.UID},
		Type:           typ, Reason: reason, Message: msg, Count: 4,
		FirstTimestamp: TS(first), LastTimestamp: TS(-time.Minute),
		Source: corev1.EventSource{Component: "persistentvolume-controller"},
	}
}

func ClaimBundle(pvc *corev1.PersistentVolumeClaim, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target: fault.Resource{APIVersion: "v1", Kind: "PersistentVolumeClaim", Name: pvc.Name, Namespace: pvc.Namespace, UID: string(pvc.UID)},
		Object: RawObject(pvc, "v1", "PersistentVolumeClaim"),
		PVCs:   []*corev1.PersistentVolumeClaim{pvc},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func WithClasses(scs ...*storagev1.StorageClass) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.StorageClasses = append(b.StorageClasses, scs...) }
}

func WithPVs(pvs ...*corev1.PersistentVolume) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.PVs = append(b.PVs, pvs...) }
}

func MissingObject(kind, ns, name string) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		b.Missing = append(b.Missing, bundle.MissingRef{Kind: kind, Namespace: ns, Name: name, ReferencedBy: "test"})
	}
}

func MountsClaim(volume, claimName string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: volume,
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName}}})
	}
}

// VolumeEvent is a kubelet (or attach-detach controller, or scheduler) event about a pod.
func VolumeEvent(p *corev1.Pod, reason, msg string) func(*bundle.Bundle) {
	return WithEvents(Event(p, "Warning", reason, msg, 12))
}

func Volumes(vs ...corev1.Volume) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Volumes = append(p.Spec.Volumes, vs...) }
}
