package bundle

// The storage around a pod: its claims, their PersistentVolumes and
// StorageClasses, each fetched once per collection.

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func (c *collector) havePVC(ns, name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.b.PVCs {
		if p.Namespace == ns && p.Name == name {
			return true
		}
	}
	return false
}

// noProvisioner is the provisioner of classes whose volumes are created by
// hand: their claims bind only to existing PersistentVolumes.
const noProvisioner = "kubernetes.io/no-provisioner"

// Bounds of the cluster-scoped storage lists.
const (
	maxStorageClasses = 100
	maxPVs            = 100
)

// claimDetails fetches an unbound claim's StorageClass (or, when it names
// none, all classes to find the default; when the one it names does not
// exist, all classes, to propose one), its bound PV, and, for a Pending claim that can
// only bind statically, the PersistentVolumes it could bind to, so the
// closest one's size, access modes or class can be named.
func (c *collector) claimDetails(ctx context.Context, pvc *corev1.PersistentVolumeClaim) {
	by := "persistentvolumeclaim/" + pvc.Name
	static := false // binds only to an existing PV
	switch name := pvc.Spec.StorageClassName; {
	case pvc.Status.Phase == corev1.ClaimBound:
		// Bound: its class has done its work (only a Pending claim's
		// rules read classes), so one request is saved per claim.
	case name != nil && *name != "":
		sc := c.storageClass(*name)
		if sc == nil {
			c.count()
			got, err := c.cs.StorageV1().StorageClasses().Get(ctx, *name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				c.notFoundOrProblem(err, MissingRef{Kind: "StorageClass", Name: *name, ReferencedBy: by})
				c.listStorageClasses(ctx) // what the claim could name instead
			case err != nil:
				c.notFoundOrProblem(err, MissingRef{Kind: "StorageClass", Name: *name, ReferencedBy: by})
			default:
				got.ManagedFields = nil
				sc = c.addStorageClass(got)
			}
		}
		static = sc != nil && sc.Provisioner == noProvisioner
	case name != nil: // "": no dynamic provisioning, only a PV without class
		static = true
	default: // unset: the default class provisions; without one it binds like ""
		c.listStorageClasses(ctx)
		static = !c.haveDefaultStorageClass()
	}
	if static && pvc.Status.Phase == corev1.ClaimPending {
		c.listPVs(ctx)
	}
	if pv := pvc.Spec.VolumeName; pv != "" && !c.havePV(pv) {
		c.count()
		vol, err := c.cs.CoreV1().PersistentVolumes().Get(ctx, pv, metav1.GetOptions{})
		if err != nil {
			c.notFoundOrProblem(err, MissingRef{Kind: "PersistentVolume", Name: pv, ReferencedBy: by})
			return
		}
		c.addPV(vol)
	}
}

// listStorageClasses lists the cluster's StorageClasses, once per
// collection whoever asks.
func (c *collector) listStorageClasses(ctx context.Context) {
	c.classesOnce.Do(func() {
		c.count()
		list, err := c.cs.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{Limit: maxStorageClasses})
		if err != nil {
			c.problem("storage classes", err)
			return
		}
		for i := range list.Items {
			list.Items[i].ManagedFields = nil
			c.addStorageClass(&list.Items[i])
		}
	})
}

// listPVs lists the cluster's PersistentVolumes (bounded), once per
// collection: the candidates of a claim that binds statically.
func (c *collector) listPVs(ctx context.Context) {
	c.pvsOnce.Do(func() {
		c.count()
		list, err := c.cs.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{Limit: maxPVs})
		if err != nil {
			c.problem("persistent volumes", err)
			return
		}
		for i := range list.Items {
			c.addPV(&list.Items[i])
		}
	})
}

// addPV files a PersistentVolume once per name, redacted (CSI volume
// attributes and mount options are free-form).
func (c *collector) addPV(pv *corev1.PersistentVolume) {
	pv = redacted(pv, corev1.SchemeGroupVersion.WithKind("PersistentVolume"))
	pv.ManagedFields = nil
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, v := range c.b.PVs {
		if v.Name == pv.Name {
			return
		}
	}
	c.b.PVs = append(c.b.PVs, pv)
}

func (c *collector) havePV(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, v := range c.b.PVs {
		if v.Name == name {
			return true
		}
	}
	return false
}

// addStorageClass files a class once per name and returns the filed one.
func (c *collector) addStorageClass(sc *storagev1.StorageClass) *storagev1.StorageClass {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.b.StorageClasses {
		if s.Name == sc.Name {
			return s
		}
	}
	c.b.StorageClasses = append(c.b.StorageClasses, sc)
	return sc
}

func (c *collector) storageClass(name string) *storagev1.StorageClass {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.b.StorageClasses {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// isDefaultStorageClass reports whether sc carries the (beta or GA)
// default-class annotation.
func isDefaultStorageClass(sc *storagev1.StorageClass) bool {
	return sc.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" ||
		sc.Annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true"
}

func (c *collector) haveDefaultStorageClass() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.b.StorageClasses {
		if isDefaultStorageClass(s) {
			return true
		}
	}
	return false
}
