// Package bundle collects the evidence about a target into a context bundle:
// the object, its owner chain, its pods and their nodes, the events of every
// involved object and container logs. Everything is redacted as it is
// collected, so no later stage ever holds a credential.
package bundle

import (
	"slices"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// Bundle is the collected evidence. Typed slices hold each kind once; the
// target itself is also among them when its kind is known.
type Bundle struct {
	Target      fault.Resource
	Object      *unstructured.Unstructured
	CollectedAt time.Time
	Cluster     ClusterInfo

	Pods         []*corev1.Pod
	ReplicaSets  []*appsv1.ReplicaSet
	Deployments  []*appsv1.Deployment
	StatefulSets []*appsv1.StatefulSet
	DaemonSets   []*appsv1.DaemonSet
	Jobs         []*batchv1.Job
	CronJobs     []*batchv1.CronJob
	Nodes        []*corev1.Node

	// Related objects the rules need: what the pods reference and what the
	// target points at. Secrets are never read: a missing Secret or key is
	// known from the kubelet's own message, and whether an Ingress's TLS
	// Secret exists from a read of its table row (ClusterInfo.SecretsSeen,
	// Missing).
	Namespace       *corev1.Namespace
	ConfigMaps      []*corev1.ConfigMap             // referenced by the pods (env, envFrom, volumes)
	ServiceAccounts []*corev1.ServiceAccount        // the pods', and a workload target's pod template's
	PVCs            []*corev1.PersistentVolumeClaim // the target, or claimed by the pods
	// PVs are the claims' bound volumes and, when a Pending claim can only
	// bind statically (class "", a kubernetes.io/no-provisioner class, or
	// no class and no default one), the cluster's volumes (up to 100) it
	// could have bound to.
	PVs []*corev1.PersistentVolume
	// StorageClasses are the classes the claims name and, when a claim names
	// none or one that does not exist, the cluster's classes (up to 100).
	StorageClasses []*storagev1.StorageClass
	// Services are the target, an Ingress's backends, or every Service
	// of a pod or Deployment target's namespace (up to 100).
	Services       []*corev1.Service
	EndpointSlices []*discoveryv1.EndpointSlice
	Ingresses      []*networkingv1.Ingress
	IngressClasses []*networkingv1.IngressClass
	// NetworkPolicies are every NetworkPolicy of a pod, workload or
	// Service target's namespace (up to 100): which select the pods is a
	// label match the rules make.
	NetworkPolicies []*networkingv1.NetworkPolicy
	// RBAC is collected only when a pod's log holds a Kubernetes RBAC
	// denial of its ServiceAccount (see NeedRBAC): the RoleBindings of the
	// namespaces the denials name and the ClusterRoleBindings that name the
	// ServiceAccount, and the Roles and ClusterRoles those reference.
	RoleBindings        []*rbacv1.RoleBinding
	ClusterRoleBindings []*rbacv1.ClusterRoleBinding
	Roles               []*rbacv1.Role
	ClusterRoles        []*rbacv1.ClusterRole
	// HPAs are the target, or those scaling a Deployment, StatefulSet or
	// ReplicaSet target (or a ReplicaSet's Deployment).
	HPAs           []*autoscalingv2.HorizontalPodAutoscaler
	ResourceQuotas []*corev1.ResourceQuota
	// LimitRanges of a workload target's namespace: the defaults, minima
	// and maxima admission applies to the pods it creates (a container
	// whose limit exceeds a max is refused: FailedCreate).
	LimitRanges []*corev1.LimitRange
	// PDBs are the PodDisruptionBudgets of the namespaces of the pods
	// left on a cordoned Node target (drain.go): what holds a drain.
	PDBs []*policyv1.PodDisruptionBudget
	// NodePods are the pods scheduled on a Node target (not its own pods).
	NodePods []*corev1.Pod
	// NamespacePods are every pod of a Namespace target, status only
	// (no spec): what the report counts and ranks; the failing ones it
	// explains are in Pods, in full.
	NamespacePods []*corev1.Pod
	// DependencyPods are the pods behind a Service that a failing log
	// names and that has no ready endpoint (see dependencies.go); the log
	// of the first one not ready is among Logs.
	DependencyPods []*corev1.Pod
	// ActorObjects are what the search for a controller the target waits
	// on found (actors.go): its Lease, the Deployment or StatefulSet that
	// runs it, an APIService and its Service; redacted.
	ActorObjects []*unstructured.Unstructured
	// Candidates are pods of a Service's namespace considered when its
	// selector matches nothing, or the same workload's pods of other
	// revisions a selector pinned to one revision leaves out (names,
	// labels, owners and phase only; see revision.go).
	Candidates []*corev1.Pod
	// Missing lists objects something refers to that do not exist.
	Missing []MissingRef

	// Events about the involved objects, oldest first.
	Events []corev1.Event
	Logs   []ContainerLog

	// Problems lists what could not be collected; the report says it is
	// degraded when something important is missing.
	Problems []Problem
	// Requests counts API requests made during collection.
	Requests int
}

// ClusterInfo is context/cluster-info.json.
type ClusterInfo struct {
	Context       string           `json:"context,omitempty"`
	Cluster       string           `json:"cluster,omitempty"`
	Server        string           `json:"server,omitempty"` // host only: no path, no credentials
	ServerVersion string           `json:"serverVersion,omitempty"`
	Namespace     string           `json:"namespace,omitempty"`
	Involved      []fault.Resource `json:"involvedResources"`
	// RBACRead lists the RBAC scopes the collector read because a log
	// denied a ServiceAccount: "cluster" (ClusterRoleBindings) and the
	// namespaces whose RoleBindings it listed. A scope not listed was not
	// read, which is not "no binding there".
	RBACRead []string `json:"rbacRead,omitempty"`
	// ServicesListed names the namespace whose Services were listed whole
	// (one page held them all). Only then does a Service not among them
	// not exist; a bundle without it says nothing of missing Services.
	ServicesListed string `json:"servicesListed,omitempty"`
	// NetworkPoliciesListed names the namespace whose NetworkPolicies were
	// listed whole: only then is a pod no policy selects not isolated.
	NetworkPoliciesListed string `json:"networkPoliciesListed,omitempty"`
	// NodesListed: the cluster's nodes were listed whole (one page of at
	// most 500 held them all). Only then does "every node" hold of them.
	NodesListed bool `json:"nodesListed,omitempty"`
	// SecretsSeen are the Secrets (namespace/name) a read of their table row
	// found to exist; one found absent is in Missing. Neither holds
	// anything of the Secret but its name.
	SecretsSeen []string `json:"secretsSeen,omitempty"`
	// Actors are the searches for the controllers the target waits on
	// (its provisioner, its scheduler, the metrics APIService's pods;
	// actors.go): what was read and what was found.
	Actors []Actor `json:"actors,omitempty"`
}

// Name names the cluster faults and incidents are filed under: the
// kubeconfig's cluster, else the context (a kubeconfig may name none).
func (c ClusterInfo) Name() string {
	if c.Cluster != "" {
		return c.Cluster
	}
	return c.Context
}

// GoneAnnotation marks a placeholder target: the fault's resource no longer
// exists, and the bundle holds only what the event carried and the events
// that outlive the object.
const GoneAnnotation = "kubectl-triage.io/resource-gone"

// Gone reports whether the target no longer exists.
func (b *Bundle) Gone() bool {
	return b.Object != nil && b.Object.GetAnnotations()[GoneAnnotation] == "true"
}

// MissingRef is an object that is referenced but was not found (404).
type MissingRef struct {
	Kind         string `json:"kind"`
	Namespace    string `json:"namespace,omitempty"`
	Name         string `json:"name"`
	ReferencedBy string `json:"referencedBy"` // e.g. "pod/api env DB_HOST"
}

// IsMissing reports whether kind/name was referenced and not found.
func (b *Bundle) IsMissing(kind, namespace, name string) bool {
	for _, m := range b.Missing {
		if m.Kind == kind && m.Namespace == namespace && m.Name == name {
			return true
		}
	}
	return false
}

// SecretSeen reports whether a read of its table row found Secret ns/name.
func (b *Bundle) SecretSeen(namespace, name string) bool {
	return slices.Contains(b.Cluster.SecretsSeen, namespace+"/"+name)
}

// ConfigMap returns the collected ConfigMap, or nil.
func (b *Bundle) ConfigMap(namespace, name string) *corev1.ConfigMap {
	for _, c := range b.ConfigMaps {
		if c.Namespace == namespace && c.Name == name {
			return c
		}
	}
	return nil
}

// ContainerLog is a bounded tail of one container's log.
type ContainerLog struct {
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	Container string `json:"container"`
	Init      bool   `json:"init,omitempty"`
	Previous  bool   `json:"previous,omitempty"`
	Text      string `json:"text,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	Error     string `json:"error,omitempty"`
	// FromEvent marks an excerpt the fault event carried, not one read from
	// the kubelet.
	FromEvent bool `json:"fromEvent,omitempty"`
}

// Problem is something the collector could not get.
type Problem struct {
	What      string `json:"what"`
	Error     string `json:"error"`
	Forbidden bool   `json:"forbidden,omitempty"`
}

// each visits every typed object, owners before what they own.
func (b *Bundle) each(visit func(gvk schema.GroupVersionKind, meta metav1.Object, obj runtime.Object)) {
	for _, o := range b.CronJobs {
		visit(gvkCronJob, o, o)
	}
	for _, o := range b.Jobs {
		visit(gvkJob, o, o)
	}
	for _, o := range b.Deployments {
		visit(gvkDeployment, o, o)
	}
	for _, o := range b.StatefulSets {
		visit(gvkStatefulSet, o, o)
	}
	for _, o := range b.DaemonSets {
		visit(gvkDaemonSet, o, o)
	}
	for _, o := range b.ReplicaSets {
		visit(gvkReplicaSet, o, o)
	}
	for _, o := range b.Pods {
		visit(gvkPod, o, o)
	}
	for _, o := range b.Nodes {
		visit(gvkNode, o, o)
	}
	for _, o := range b.HPAs {
		visit(autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"), o, o)
	}
	for _, o := range b.Ingresses {
		visit(networkingv1.SchemeGroupVersion.WithKind("Ingress"), o, o)
	}
	for _, o := range b.Services {
		visit(corev1.SchemeGroupVersion.WithKind("Service"), o, o)
	}
	for _, o := range b.EndpointSlices {
		visit(discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"), o, o)
	}
	for _, o := range b.PVCs {
		visit(corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"), o, o)
	}
	for _, o := range b.PVs {
		visit(corev1.SchemeGroupVersion.WithKind("PersistentVolume"), o, o)
	}
	for _, o := range b.StorageClasses {
		visit(storagev1.SchemeGroupVersion.WithKind("StorageClass"), o, o)
	}
	for _, o := range b.ConfigMaps {
		visit(corev1.SchemeGroupVersion.WithKind("ConfigMap"), o, o)
	}
	for _, o := range b.ServiceAccounts {
		visit(corev1.SchemeGroupVersion.WithKind("ServiceAccount"), o, o)
	}
	for _, o := range b.IngressClasses {
		visit(networkingv1.SchemeGroupVersion.WithKind("IngressClass"), o, o)
	}
	for _, o := range b.NetworkPolicies {
		visit(networkingv1.SchemeGroupVersion.WithKind("NetworkPolicy"), o, o)
	}
	for _, o := range b.ClusterRoles {
		visit(rbacv1.SchemeGroupVersion.WithKind("ClusterRole"), o, o)
	}
	for _, o := range b.Roles {
		visit(rbacv1.SchemeGroupVersion.WithKind("Role"), o, o)
	}
	for _, o := range b.ClusterRoleBindings {
		visit(rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding"), o, o)
	}
	for _, o := range b.RoleBindings {
		visit(rbacv1.SchemeGroupVersion.WithKind("RoleBinding"), o, o)
	}
	for _, o := range b.ResourceQuotas {
		visit(corev1.SchemeGroupVersion.WithKind("ResourceQuota"), o, o)
	}
	for _, o := range b.LimitRanges {
		visit(corev1.SchemeGroupVersion.WithKind("LimitRange"), o, o)
	}
	for _, o := range b.PDBs {
		visit(policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"), o, o)
	}
	if b.Namespace != nil {
		visit(corev1.SchemeGroupVersion.WithKind("Namespace"), b.Namespace, b.Namespace)
	}
}

// Pod returns the pod with this name, or nil.
func (b *Bundle) Pod(name string) *corev1.Pod {
	for _, p := range b.Pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Node returns the node with this name, or nil.
func (b *Bundle) Node(name string) *corev1.Node {
	for _, n := range b.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// EventsFor returns the events whose involved object has this uid, oldest first.
func (b *Bundle) EventsFor(uid string) []corev1.Event {
	var out []corev1.Event
	for _, e := range b.Events {
		if string(e.InvolvedObject.UID) == uid {
			out = append(out, e)
		}
	}
	return out
}

// LogsFor returns the collected logs of one container.
func (b *Bundle) LogsFor(pod, container string) (current, previous *ContainerLog) {
	for i := range b.Logs {
		l := &b.Logs[i]
		if l.Pod != pod || l.Container != container {
			continue
		}
		if l.Previous {
			previous = l
		} else {
			current = l
		}
	}
	return current, previous
}

// EventCount is how many times an event was seen (at least once), whichever
// API wrote it (core/v1 count, events.k8s.io series).
func EventCount(e *corev1.Event) int32 {
	n := e.Count
	if e.Series != nil && e.Series.Count > n {
		n = e.Series.Count
	}
	return max(n, 1)
}

// EventTime is the most recent time an event was seen.
func EventTime(e *corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	case !e.FirstTimestamp.IsZero():
		return e.FirstTimestamp.Time
	}
	return e.CreationTimestamp.Time
}

// FirstSeen is the first time an event was seen.
func FirstSeen(e *corev1.Event) time.Time {
	switch {
	case !e.FirstTimestamp.IsZero():
		return e.FirstTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return EventTime(e)
}

func sortEvents(evs []corev1.Event) {
	sort.SliceStable(evs, func(i, j int) bool {
		ti, tj := EventTime(&evs[i]), EventTime(&evs[j])
		if ti.Equal(tj) {
			return evs[i].Name < evs[j].Name
		}
		return ti.Before(tj)
	})
}
