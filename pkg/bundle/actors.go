package bundle

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/pkg/objconv"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
)

// Some objects wait on a controller that no event of theirs names when it
// runs but fails: a claim on its external provisioner, a pod on the
// scheduler its spec.schedulerName names, an HPA on the pods behind the
// metrics APIService. Only that controller's state and log say why. The
// collector finds it with a few bounded reads and records what it read, so
// that "no such controller" is said only of what was searched
// (docs/DESIGN.md, "Correlations").

// ActorRole is what a controller does for the object waiting on it.
type ActorRole string

const (
	// RoleProvisioner creates the volume of a claim (the StorageClass's
	// provisioner, an external one).
	RoleProvisioner ActorRole = "provisioner"
	// RoleScheduler places a pod whose spec.schedulerName is not the
	// default scheduler.
	RoleScheduler ActorRole = "scheduler"
	// RoleAPIService serves an aggregated API (metrics.k8s.io) an HPA
	// reads.
	RoleAPIService ActorRole = "apiservice"
	// RoleIngressController serves the Ingresses of a class.
	RoleIngressController ActorRole = "ingress-controller"
	// RoleResizer expands the volume of a claim grown in its spec (the
	// CSI external-resizer sidecar of the claim's driver).
	RoleResizer ActorRole = "resizer"
)

// Actor records the search for the controller an object waits on: what
// was read, what was found, and the pods that run it (kept among
// DependencyPods).
type Actor struct {
	Role ActorRole `json:"role"`
	// Name is the provisioner's, the scheduler's or the APIService's.
	Name string `json:"name"`
	// For is the waiting object ("pvc/data", "pod/web-0", "hpa/api").
	For string `json:"for"`
	// Searched says, in words, what was read to find it.
	Searched []string `json:"searched"`
	// Complete is true when every read answered in full (no page cut
	// short, none refused): only then does finding nothing mean there is
	// none.
	Complete bool `json:"complete"`
	// Workload runs it ("Deployment kube-system/csi-controller") and
	// Container is the container whose args or env name it.
	Workload  string `json:"workload,omitempty"`
	Container string `json:"container,omitempty"`
	// Pods are its pods (namespace/name), in DependencyPods.
	Pods []string `json:"pods,omitempty"`
	// Status is an APIService's Available condition ("False
	// (MissingEndpoints): …") and Service the Service it sends to
	// (namespace/name).
	Status  string `json:"status,omitempty"`
	Service string `json:"service,omitempty"`
	// Missing: the APIService does not exist.
	Missing bool `json:"missing,omitempty"`
}

// SearchedText says what the search read, for a finding that found no
// controller: "searched …", and when a read was cut short or refused, that
// not all of it could be read.
func (a *Actor) SearchedText() string {
	s := "searched " + strings.Join(a.Searched, ", ")
	if !a.Complete {
		s += "; not all of it could be read"
	}
	return s
}

// Actor returns the search for the controller of role the object named
// for waits on, or nil when none was made.
func (b *Bundle) Actor(role ActorRole, forObj string) *Actor {
	for i := range b.Cluster.Actors {
		if a := &b.Cluster.Actors[i]; a.Role == role && a.For == forObj {
			return a
		}
	}
	return nil
}

// ActorPods are the pods that run a, as collected.
func (b *Bundle) ActorPods(a *Actor) []*corev1.Pod {
	var out []*corev1.Pod
	for _, ref := range a.Pods {
		for _, p := range b.DependencyPods {
			if p.Namespace+"/"+p.Name == ref {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// maxActorWorkloads bounds each cluster-wide list of Deployments,
// StatefulSets and DaemonSets searched for a controller's args or env.
const maxActorWorkloads = 500

// maxActorMatches bounds the workloads of equal rank kept for one
// controller (a pod list and a log each).
const maxActorMatches = 3

// actors follows the waiting objects of the bundle to their controller:
// at most one claim, one pod and one HPA, each a handful of requests.
func (c *collector) actors(ctx context.Context) {
	if pvc, prov := c.waitingClaim(); pvc != nil {
		a := Actor{Role: RoleProvisioner, Name: prov, For: "pvc/" + pvc.Name, Complete: true}
		if !c.byLease(ctx, &a, provisionerLeases(prov)) {
			c.byTemplate(ctx, &a, func(w *metav1.ObjectMeta, spec *corev1.PodSpec, ctr *corev1.Container) int {
				return score(namesValue(ctr, prov) || sidecarOf(w, spec, ctr, "csi-provisioner", prov))
			})
		}
		c.addActor(a)
	}
	if pvc, driver := c.expandingClaim(); pvc != nil {
		a := Actor{Role: RoleResizer, Name: driver, For: "pvc/" + pvc.Name, Complete: true}
		if !c.byLease(ctx, &a, []string{"external-resizer-" + provisionerLeases(driver)[0]}) {
			c.byTemplate(ctx, &a, func(w *metav1.ObjectMeta, spec *corev1.PodSpec, ctr *corev1.Container) int {
				return score(sidecarOf(w, spec, ctr, "csi-resizer", driver))
			})
		}
		c.addActor(a)
	}
	if p := c.waitingPod(); p != nil {
		name := p.Spec.SchedulerName
		a := Actor{Role: RoleScheduler, Name: name, For: "pod/" + p.Name, Complete: true}
		c.byTemplate(ctx, &a, func(_ *metav1.ObjectMeta, _ *corev1.PodSpec, ctr *corev1.Container) int {
			return score(setsFlag(ctr, "scheduler-name", name))
		})
		c.addActor(a)
	}
	if ing, class, controller := c.servedIngress(); ing != "" {
		a := Actor{Role: RoleIngressController, Name: class, For: "ingress/" + ing, Complete: true}
		c.byTemplate(ctx, &a, func(_ *metav1.ObjectMeta, _ *corev1.PodSpec, ctr *corev1.Container) int {
			return ingressClassScore(ctr, class, controller)
		})
		c.addActor(a)
	}
	if h, svc := c.waitingHPA(); h != "" {
		a := Actor{Role: RoleAPIService, Name: svc, For: "hpa/" + h, Complete: true}
		c.byAPIService(ctx, &a)
		c.addActor(a)
	}
}

// keepActorObject files what the search found (the Lease, the workload,
// the APIService and its Service), redacted, among ActorObjects: the
// controller's image and args for a reader, and what a replay needs.
func (c *collector) keepActorObject(obj runtime.Object, gvk schema.GroupVersionKind) {
	m, err := objconv.Converter.ToUnstructured(obj)
	if err != nil {
		return
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	u.SetManagedFields(nil)
	unstructured.RemoveNestedField(u.Object, "metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration")
	redact.Object(u.Object)
	c.mu.Lock()
	c.b.ActorObjects = append(c.b.ActorObjects, u)
	c.mu.Unlock()
}

func (c *collector) addActor(a Actor) {
	c.mu.Lock()
	c.b.Cluster.Actors = append(c.b.Cluster.Actors, a)
	c.mu.Unlock()
}

// waitingClaim is a Pending claim the persistentvolume controller handed
// to an external provisioner that has said nothing since (no
// Provisioning, ProvisioningFailed or ProvisioningSucceeded event).
func (c *collector) waitingClaim() (*corev1.PersistentVolumeClaim, string) {
	for _, pvc := range c.b.PVCs {
		if pvc.Status.Phase != corev1.ClaimPending {
			continue
		}
		handed, answered := false, false
		for _, e := range c.b.EventsFor(string(pvc.UID)) {
			switch e.Reason {
			case "ExternalProvisioning":
				handed = true
			case "Provisioning", "ProvisioningFailed", "ProvisioningSucceeded":
				answered = true
			}
		}
		if !handed || answered {
			continue
		}
		prov := pvc.Annotations["volume.kubernetes.io/storage-provisioner"]
		if prov == "" {
			prov = pvc.Annotations["volume.beta.kubernetes.io/storage-provisioner"]
		}
		if prov != "" {
			return pvc, prov
		}
	}
	return nil, ""
}

// waitingPod is a pod no scheduler has placed whose spec.schedulerName
// names another scheduler than the default one, and no scheduler has
// written a PodScheduled condition for: nothing on the pod says why.
func (c *collector) waitingPod() *corev1.Pod {
	for _, p := range c.b.Pods {
		if p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending || p.DeletionTimestamp != nil {
			continue
		}
		if n := p.Spec.SchedulerName; n == "" || n == corev1.DefaultSchedulerName {
			continue
		}
		placed := false
		for _, cond := range p.Status.Conditions {
			placed = placed || cond.Type == corev1.PodScheduled
		}
		if !placed {
			return p
		}
	}
	return nil
}

// metricsAPIRe is the aggregated metrics API an HPA's failure names:
// "unable to fetch metrics from resource metrics API: … (get
// pods.metrics.k8s.io)", and the custom and external metrics APIs.
var metricsAPIRe = regexp.MustCompile(`\(get [a-z]+\.((?:custom\.|external\.)?metrics\.k8s\.io)\)`)

// waitingHPA is an HPA whose conditions or events say the metrics API did
// not answer, and the APIService that serves it (v1beta1.<group>).
func (c *collector) waitingHPA() (string, string) {
	for _, h := range c.b.HPAs {
		texts := []string{}
		for _, cond := range h.Status.Conditions {
			texts = append(texts, cond.Message)
		}
		for _, e := range c.b.EventsFor(string(h.UID)) {
			texts = append(texts, e.Message)
		}
		for _, t := range texts {
			if m := metricsAPIRe.FindStringSubmatch(t); m != nil {
				return h.Name, "v1beta1." + m[1]
			}
		}
	}
	return "", ""
}

// provisionerLeases are the leader-election locks a provisioner of that
// name takes: the CSI external-provisioner's Lease is the driver's name
// with every character outside [a-zA-Z0-9-] made "-"
// (kubernetes-csi/csi-lib-utils leaderelection), sig-storage-lib-external-
// provisioner's has only its slashes replaced.
func provisionerLeases(prov string) []string {
	csi := regexp.MustCompile(`[^a-zA-Z0-9-]`).ReplaceAllString(prov, "-")
	if strings.HasSuffix(csi, "-") {
		csi += "X"
	}
	lib := strings.ReplaceAll(prov, "/", "-")
	if lib == csi {
		return []string{csi}
	}
	return []string{csi, lib}
}

// byLease finds the controller by its leader-election Lease in any
// namespace: the holder's identity is the leader's pod name, or holds it
// between "_" (sig-storage-lib-external-provisioner: name_pod_uuid).
func (c *collector) byLease(ctx context.Context, a *Actor, names []string) bool {
	for _, name := range names {
		c.count()
		list, err := c.cs.CoordinationV1().Leases("").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
		a.Searched = append(a.Searched, fmt.Sprintf("Leases named %s in every namespace", name))
		if err != nil {
			a.Complete = false
			c.problem("leases named "+name+" (the "+string(a.Role)+"'s lock)", err)
			continue
		}
		for _, l := range list.Items {
			if l.Name != name || l.Spec.HolderIdentity == nil {
				continue
			}
			for _, cand := range holderPods(*l.Spec.HolderIdentity) {
				c.count()
				p, err := c.cs.CoreV1().Pods(l.Namespace).Get(ctx, cand, metav1.GetOptions{})
				if err != nil {
					continue
				}
				a.Workload = "Lease " + l.Namespace + "/" + l.Name
				c.keepActorObject(&l, coordinationv1.SchemeGroupVersion.WithKind("Lease"))
				c.keepActorPods(ctx, a, []corev1.Pod{*p}, "")
				return true
			}
		}
	}
	return false
}

// holderPods are the pod names a Lease holder's identity may carry, at
// most two.
func holderPods(id string) []string {
	var out []string
	for _, s := range append([]string{id}, strings.Split(id, "_")...) {
		if len(validation.IsDNS1123Subdomain(s)) == 0 && strings.Contains(s, "-") && !contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) > 2 {
		out = out[:2]
	}
	return out
}

// byTemplate searches the Deployments, StatefulSets and DaemonSets of every namespace
// (bounded) for the one whose pod template runs a container that names
// the controller, then lists the pods of the best-ranked ones.
func (c *collector) byTemplate(ctx context.Context, a *Actor, names func(*metav1.ObjectMeta, *corev1.PodSpec, *corev1.Container) int) {
	type found struct {
		kind, ns, name string
		meta           *metav1.ObjectMeta
		sel            *metav1.LabelSelector
		tmpl           corev1.PodTemplateSpec
		obj            runtime.Object
	}
	c.count()
	deps, err := c.cs.AppsV1().Deployments("").List(ctx, metav1.ListOptions{Limit: maxActorWorkloads})
	if err != nil {
		a.Complete = false
		c.problem("deployments of every namespace (the "+string(a.Role)+" "+a.Name+")", err)
		deps = &appsv1.DeploymentList{}
	}
	c.count()
	sts, err := c.cs.AppsV1().StatefulSets("").List(ctx, metav1.ListOptions{Limit: maxActorWorkloads})
	if err != nil {
		a.Complete = false
		c.problem("statefulsets of every namespace (the "+string(a.Role)+" "+a.Name+")", err)
		sts = &appsv1.StatefulSetList{}
	}
	c.count()
	dss, err := c.cs.AppsV1().DaemonSets("").List(ctx, metav1.ListOptions{Limit: maxActorWorkloads})
	if err != nil {
		a.Complete = false
		c.problem("daemonsets of every namespace (the "+string(a.Role)+" "+a.Name+")", err)
		dss = &appsv1.DaemonSetList{}
	}
	if deps.Continue != "" || sts.Continue != "" || dss.Continue != "" {
		a.Complete = false
	}
	a.Searched = append(a.Searched, "the pod templates of the Deployments, StatefulSets and DaemonSets of every namespace")
	var all []found
	for i := range deps.Items {
		d := &deps.Items[i]
		all = append(all, found{"Deployment", d.Namespace, d.Name, &d.ObjectMeta, d.Spec.Selector, d.Spec.Template, d})
	}
	for i := range sts.Items {
		s := &sts.Items[i]
		all = append(all, found{"StatefulSet", s.Namespace, s.Name, &s.ObjectMeta, s.Spec.Selector, s.Spec.Template, s})
	}
	for i := range dss.Items {
		d := &dss.Items[i]
		all = append(all, found{"DaemonSet", d.Namespace, d.Name, &d.ObjectMeta, d.Spec.Selector, d.Spec.Template, d})
	}
	// The surest match wins; several workloads of equal rank (two
	// installations claiming one class) are all kept, up to
	// maxActorMatches, each with its pods and one log.
	type match struct {
		w         *found
		container string
	}
	var hits []match
	best := 0
	for i := range all {
		for j := range all[i].tmpl.Spec.Containers {
			ctr := &all[i].tmpl.Spec.Containers[j]
			switch score := names(all[i].meta, &all[i].tmpl.Spec, ctr); {
			case score > best:
				hits, best = []match{{&all[i], ctr.Name}}, score
			case score == best && score > 0 && len(hits) < maxActorMatches && hits[len(hits)-1].w != &all[i]:
				hits = append(hits, match{&all[i], ctr.Name})
			}
		}
	}
	for n, h := range hits {
		if n == 0 {
			a.Workload, a.Container = h.w.kind+" "+h.w.ns+"/"+h.w.name, h.container
		}
		c.keepActorObject(h.w.obj, appsv1.SchemeGroupVersion.WithKind(h.w.kind))
		sel, err := metav1.LabelSelectorAsSelector(h.w.sel)
		if err != nil || sel.Empty() {
			continue
		}
		c.count()
		list, err := c.cs.CoreV1().Pods(h.w.ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String(), Limit: maxDependencyPods})
		if err != nil {
			a.Complete = false
			c.problem("pods of "+h.w.kind+" "+h.w.ns+"/"+h.w.name, err)
			continue
		}
		c.keepActorPods(ctx, a, list.Items, h.container)
	}
}

// keepActorPods files the controller's pods among DependencyPods and reads
// one log: the first pod down's (why it is down), else the first pod's
// current log of container (what it does with the waiting object).
func (c *collector) keepActorPods(ctx context.Context, a *Actor, pods []corev1.Pod, container string) {
	var down, first *corev1.Pod
	for i := range pods {
		p := &pods[i]
		p.ManagedFields = nil
		rp := redacted(p, gvkPod)
		c.mu.Lock()
		c.b.DependencyPods = append(c.b.DependencyPods, rp)
		c.mu.Unlock()
		a.Pods = append(a.Pods, rp.Namespace+"/"+rp.Name)
		if down == nil && !podHealthy(rp) {
			down = rp
		}
		if first == nil {
			first = rp
		}
	}
	if !c.opts.wants(NeedLogs) || first == nil {
		return
	}
	if down != nil {
		if r, ok := dependencyLog(down); ok {
			c.log(ctx, down.Namespace, down.Name, r)
			return
		}
	}
	if container == "" && len(first.Spec.Containers) > 0 {
		container = first.Spec.Containers[0].Name
	}
	if first.Status.Phase == corev1.PodRunning && container != "" {
		c.log(ctx, first.Namespace, first.Name, logRequest{container: container})
	}
}

// expandingClaim is a Bound claim grown in its spec that the expand
// controller handed to an external resizer (ExternalExpanding) which has
// said nothing since (no Resizing, VolumeResizeFailed or
// VolumeResizeSuccessful event), and the claim's driver.
func (c *collector) expandingClaim() (*corev1.PersistentVolumeClaim, string) {
	for _, pvc := range c.b.PVCs {
		req, okReq := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
		got, okGot := pvc.Status.Capacity[corev1.ResourceStorage]
		if pvc.Status.Phase != corev1.ClaimBound || !okReq || !okGot || req.Cmp(got) <= 0 {
			continue
		}
		handed, answered := false, false
		for _, e := range c.b.EventsFor(string(pvc.UID)) {
			switch e.Reason {
			case "ExternalExpanding":
				handed = true
			case "Resizing", "VolumeResizeFailed", "VolumeResizeSuccessful", "FileSystemResizeRequired":
				answered = true
			}
		}
		driver := pvc.Annotations["volume.kubernetes.io/storage-provisioner"]
		if driver == "" {
			driver = pvc.Annotations["volume.beta.kubernetes.io/storage-provisioner"]
		}
		if handed && !answered && driver != "" {
			return pvc, driver
		}
	}
	return nil, ""
}

// apiService is the part of an apiregistration.k8s.io/v1 APIService read:
// read raw, so that the aggregator's client is not a dependency.
type apiService struct {
	Spec struct {
		Service *struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"service"`
	} `json:"spec"`
	Status struct {
		Conditions []metav1.Condition `json:"conditions"`
	} `json:"status"`
}

// byAPIService reads the APIService, its Available condition, the Service
// it sends to and that Service's pods.
func (c *collector) byAPIService(ctx context.Context, a *Actor) {
	rc := c.cs.CoreV1().RESTClient()
	if r, ok := rc.(*rest.RESTClient); !ok || r == nil {
		a.Complete = false
		return // a fake clientset has no REST client
	}
	c.count()
	raw, err := rc.Get().AbsPath("/apis/apiregistration.k8s.io/v1/apiservices", a.Name).Do(ctx).Raw()
	a.Searched = append(a.Searched, "APIService "+a.Name)
	var svc apiService
	switch {
	case apierrors.IsNotFound(err):
		a.Missing = true
		return
	case err != nil:
		a.Complete = false
		c.problem("apiservice "+a.Name, err)
		return
	case json.Unmarshal(raw, &svc) != nil:
		a.Complete = false
		return
	}
	if u := (&unstructured.Unstructured{}); u.UnmarshalJSON(raw) == nil {
		c.keepActorObject(u, u.GroupVersionKind())
	}
	for _, cond := range svc.Status.Conditions {
		if cond.Type == "Available" {
			a.Status = fmt.Sprintf("%s (%s): %s", cond.Status, cond.Reason, cond.Message)
		}
	}
	if svc.Spec.Service == nil {
		return // served by the apiserver itself
	}
	ns, name := svc.Spec.Service.Namespace, svc.Spec.Service.Name
	a.Service = ns + "/" + name
	c.count()
	s, err := c.cs.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	a.Searched = append(a.Searched, "Service "+a.Service)
	if err != nil {
		if apierrors.IsNotFound(err) {
			c.mu.Lock()
			c.b.Missing = append(c.b.Missing, MissingRef{Kind: "Service", Namespace: ns, Name: name, ReferencedBy: "apiservice/" + a.Name + " spec.service"})
			c.mu.Unlock()
		} else {
			a.Complete = false
			c.problem("service "+a.Service+" (behind apiservice "+a.Name+")", err)
		}
		return
	}
	c.keepActorObject(s, corev1.SchemeGroupVersion.WithKind("Service"))
	if len(s.Spec.Selector) == 0 {
		return
	}
	c.count()
	list, err := c.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(s.Spec.Selector).String(), Limit: maxDependencyPods})
	a.Searched = append(a.Searched, "the pods of Service "+a.Service)
	if err != nil {
		a.Complete = false
		c.problem("pods of service "+a.Service, err)
		return
	}
	a.Workload = "Service " + a.Service
	c.keepActorPods(ctx, a, list.Items, "")
}
