package storage

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// PVCPending is the rule storage/pvc-pending.
var PVCPending = &rule.Rule{
	Meta: rule.Meta{
		ID:    "storage/pvc-pending",
		Layer: rule.PlacementLayer,
		Needs: []rule.Need{rule.Claims, rule.Pods, rule.Events, rule.Nodes},
		Doc:   "A claim that does not bind: no class, no provisioner, no matching volume, capacity, topology.",
	},
	Check: checkPVCs,
}

const AnnDefaultStorageClass = "storageclass.kubernetes.io/is-default-class"

const annDefaultStorageClassBeta = "storageclass.beta.kubernetes.io/is-default-class"

const annSelectedNode = "volume.kubernetes.io/selected-node"

const NoProvisioner = "kubernetes.io/no-provisioner"

const storageClassesCommand = "kubectl get storageclass"

// provisionerSilence is how long a claim may wait for an external
// provisioner before its silence is a finding rather than a delay.
const provisionerSilence = 2 * time.Minute

// "Waiting for a volume to be created either by the external provisioner 'x' or manually by the system administrator. …"
// and the older `waiting for a volume to be created, either by external provisioner "x" or manually created by system administrator`.
var externalProvisionerRe = regexp.MustCompile(`(?i)waiting for a volume to be created,? either by (?:the )?external provisioner ['"](?P<provisioner>[^'"]+)['"]`)

var classNotFoundRe = regexp.MustCompile(`storageclass\.storage\.k8s\.io "(?P<class>[^"]+)" not found`)

// claimCase is a claim to examine and how it came into the bundle.
type claimCase struct {
	pvc *corev1.PersistentVolumeClaim
	pod *corev1.Pod // the pod that mounts it, nil when the claim is the target
}

func claimCases(c *rule.Pass) []claimCase {
	if pvc := kube.TargetOf(c, "PersistentVolumeClaim", c.B.PVCs); pvc != nil {
		return []claimCase{{pvc: pvc}}
	}
	var out []claimCase
	seen := map[string]bool{}
	for _, p := range c.B.Pods {
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim == nil || seen[v.PersistentVolumeClaim.ClaimName] {
				continue
			}
			if pvc := ClaimNamed(c, p.Namespace, v.PersistentVolumeClaim.ClaimName); pvc != nil {
				seen[pvc.Name] = true
				out = append(out, claimCase{pvc: pvc, pod: p})
			}
		}
	}
	return out
}

func VolumeNamed(c *rule.Pass, name string) *corev1.PersistentVolume {
	for _, pv := range c.B.PVs {
		if pv.Name == name {
			return pv
		}
	}
	return nil
}

func StorageClassNamed(c *rule.Pass, name string) *storagev1.StorageClass {
	for _, sc := range c.B.StorageClasses {
		if sc.Name == name {
			return sc
		}
	}
	return nil
}

func defaultStorageClasses(c *rule.Pass) []string {
	var out []string
	for _, sc := range c.B.StorageClasses {
		if sc.Annotations[AnnDefaultStorageClass] == "true" || sc.Annotations[annDefaultStorageClassBeta] == "true" {
			out = append(out, sc.Name)
		}
	}
	sort.Strings(out)
	return out
}

func storageClassList(c *rule.Pass) string {
	var names []string
	for _, sc := range c.B.StorageClasses {
		names = append(names, fmt.Sprintf("%s (%s)", sc.Name, sc.Provisioner))
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "no StorageClass"
	}
	return strings.Join(names, ", ")
}

func pvcRef(pvc *corev1.PersistentVolumeClaim) string { return "pvc/" + pvc.Name }

func pvcNS(pvc *corev1.PersistentVolumeClaim) string { return "-n " + pvc.Namespace }

func claimRequest(pvc *corev1.PersistentVolumeClaim) string {
	if q, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		return q.String()
	}
	return "?"
}

func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	var s []string
	for _, m := range modes {
		s = append(s, string(m))
	}
	return kube.ValueOr(strings.Join(s, ","), "none")
}

// claimEvents are the claim's events, newest last, by reason.
type claimEvents struct {
	all  []corev1.Event
	last map[string]*corev1.Event
}

func eventsOfClaim(c *rule.Pass, pvc *corev1.PersistentVolumeClaim) claimEvents {
	ev := claimEvents{all: c.B.EventsFor(string(pvc.UID)), last: map[string]*corev1.Event{}}
	for i := range ev.all {
		ev.last[ev.all[i].Reason] = &ev.all[i]
	}
	return ev
}

func claimEventEvidence(c *rule.Pass, pvc *corev1.PersistentVolumeClaim, e *corev1.Event) string {
	return c.Evidence(fmt.Sprintf("Event %s %s ×%d: %s", e.Type, e.Reason, max(e.Count, 1), e.Message), "event on "+pvcRef(pvc),
		fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", pvcNS(pvc), pvc.Name, e.Reason))
}

// checkPVCs: a claim that stays Pending (or lost its volume), and why: a
// StorageClass that does not exist, no default class, a provisioner that
// never answers or fails, a static class without a matching PV — or the
// expected wait for a first consumer, which is no fault.
func checkPVCs(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, cc := range claimCases(c) {
		pvc := cc.pvc
		switch pvc.Status.Phase {
		case corev1.ClaimBound:
			if cc.pod == nil {
				out = append(out, rule.Finding{Category: rule.PVC.Sub("Pending"), Verdict: report.Refuted, Confidence: rule.Definitive, Subject: pvc.Name,
					Hypothesis: fmt.Sprintf("PVC %s is not bound to a volume (it is Bound to %s)", pvc.Name, kube.ValueOr(pvc.Spec.VolumeName, "?"))})
			}
		case corev1.ClaimLost:
			out = append(out, lostClaimFinding(c, cc))
		default:
			if f := pendingClaimFinding(c, cc); f != nil {
				out = append(out, *f)
			}
		}
	}
	return out
}

// claimBase fills what every claim finding shares; a claim seen through a
// pod explains that pod's symptom, so it ranks deeper than the pod's own
// scheduling finding.
func claimBase(c *rule.Pass, cc claimCase) rule.Finding {
	pvc := cc.pvc
	f := rule.Finding{Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: pvc.Name}
	age := ""
	if !pvc.CreationTimestamp.IsZero() {
		age = fmt.Sprintf(" for %s", c.Now.Sub(pvc.CreationTimestamp.Time).Round(time.Second))
	}
	f.Evidence = []string{c.Evidence(fmt.Sprintf("PVC %s is %s%s (requests %s, %s, class %s)", pvc.Name, kube.ValueOr(string(pvc.Status.Phase), "Pending"), age,
		claimRequest(pvc), accessModes(pvc.Spec.AccessModes), classText(pvc.Spec.StorageClassName)),
		pvcRef(pvc)+" .status.phase", fmt.Sprintf("kubectl get pvc %s %s -o wide", pvc.Name, pvcNS(pvc)))}
	if cc.pod != nil {
		f.Strength = rule.Traced
		f.Contributing = append(f.Contributing, fmt.Sprintf("Pod %s mounts this claim and cannot start until it is bound.", cc.pod.Name))
	}
	return f
}

func classText(name *string) string {
	switch {
	case name == nil:
		return "unset"
	case *name == "":
		return `"" (static binding only)`
	}
	return *name
}

func pendingClaimFinding(c *rule.Pass, cc claimCase) *rule.Finding {
	pvc := cc.pvc
	ev := eventsOfClaim(c, pvc)
	f := claimBase(c, cc)
	recreate := report.Action{Kind: report.Immediate,
		Description: "A claim's storageClassName cannot be changed: recreate the claim with the right class (it is Pending, so it holds no data).",
		Commands: []string{
			fmt.Sprintf("kubectl get pvc %s %s -o yaml > %s.yaml   # set spec.storageClassName", pvc.Name, pvcNS(pvc), pvc.Name),
			fmt.Sprintf("kubectl replace --force -f %s.yaml", pvc.Name),
		},
		Risk: "replace --force deletes and recreates the claim; pods using it must be restarted to pick it up"}

	// A claim bound by name to a specific volume.
	if pvc.Spec.VolumeName != "" {
		return preboundClaimFinding(c, cc, f, ev)
	}

	className := ""
	switch {
	case pvc.Spec.StorageClassName == nil:
		defaults := defaultStorageClasses(c)
		if len(defaults) == 0 && kube.CollectionFailed(c, "storage class") {
			return &rule.Finding{Category: rule.PVC.Sub("Pending", "NoDefaultStorageClass"), Verdict: report.Inconclusive, Confidence: rule.Speculative, Subject: pvc.Name, Current: true,
				Hypothesis: fmt.Sprintf("PVC %s sets no storageClassName and no default StorageClass exists (the classes could not be read)", pvc.Name),
				Evidence:   f.Evidence}
		}
		if len(defaults) == 0 {
			f.Category = rule.PVC.Sub("Pending", "NoDefaultStorageClass")
			f.Confidence = rule.Likely
			f.Evidence = append(f.Evidence, c.Evidence("StorageClasses: "+storageClassList(c)+"; none is marked default", "storageclasses (cluster-scoped)", storageClassesCommand))
			if e := ev.last["FailedBinding"]; e != nil {
				f.Evidence = append(f.Evidence, claimEventEvidence(c, pvc, e))
				f.Confidence = rule.Strong
			}
			f.Hypothesis = fmt.Sprintf("PVC %s sets no storageClassName and the cluster has no default StorageClass to provision it", pvc.Name)
			f.Title = fmt.Sprintf("PVC %s has no storageClassName and the cluster has no default StorageClass (%s)", pvc.Name, storageClassList(c))
			f.Summary = fmt.Sprintf("PVC %s names no StorageClass, and no class is marked default, so nothing provisions a volume for it; it can only bind a pre-created PV that matches, and none does.", pvc.Name)
			f.Mechanism = "A claim without storageClassName gets the default StorageClass; with no default, the persistentvolume controller only looks for an existing PV without a class and otherwise leaves the claim Pending (event FailedBinding: no persistent volumes available for this claim and no storage class is set)."
			f.Culprit = fmt.Sprintf("%s .spec.storageClassName (unset; no default StorageClass)", pvcRef(pvc))
			f.Actions = []report.Action{
				{Kind: report.Immediate, Description: "Mark the cluster's intended StorageClass as default (the controller then assigns it to this claim), or recreate the claim naming a class.",
					Commands: []string{storageClassesCommand, fmt.Sprintf(`kubectl patch storageclass <class> -p '{"metadata":{"annotations":{"%s":"true"}}}'`, AnnDefaultStorageClass)},
					Risk:     "every new claim without a class gets that class"},
				recreate,
			}
			f.Contributing = append(f.Contributing, pvMismatches(c, pvc, "")...)
			return &f
		}
		// Since Kubernetes 1.28 the controller assigns a default class to
		// claims created before it existed: judge the claim by that class.
		className = defaults[0]
		f.Contributing = append(f.Contributing, fmt.Sprintf("The claim names no class; the default class %s applies to it.", className))
	case *pvc.Spec.StorageClassName == "":
		return staticClaimFinding(c, cc, f, ev, "", nil)
	default:
		className = *pvc.Spec.StorageClassName
	}

	sc := StorageClassNamed(c, className)
	failed := ev.last["ProvisioningFailed"]
	classMissing := c.B.IsMissing("StorageClass", "", className)
	if failed != nil {
		if m, ok := submatch.Find(classNotFoundRe, failed.Message); ok && m.Get("class") == className {
			classMissing = true
		}
	}
	if sc == nil && classMissing {
		f.Category = rule.PVC.Sub("Pending", "StorageClassMissing")
		f.Confidence = rule.Definitive
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("StorageClass %s does not exist (404)", className),
			"storageclass/"+className, fmt.Sprintf("kubectl get storageclass %s", className)))
		if failed != nil {
			f.Evidence = append(f.Evidence, claimEventEvidence(c, pvc, failed))
		}
		// The bundle holds the classes it happened to read, not necessarily
		// all of them: name them as seen, never as the cluster's full list.
		if len(c.B.StorageClasses) > 0 {
			f.Contributing = append(f.Contributing, "StorageClasses seen in this investigation: "+storageClassList(c)+".")
		}
		f.Hypothesis = fmt.Sprintf("PVC %s names StorageClass %s, which does not exist", pvc.Name, className)
		f.Title = fmt.Sprintf("PVC %s names StorageClass %q, which does not exist", pvc.Name, className)
		f.Summary = fmt.Sprintf("PVC %s asks for StorageClass %q, which does not exist, so no provisioner is asked to create a volume and the claim stays Pending.", pvc.Name, className)
		f.Mechanism = "The persistentvolume controller looks the claim's class up to find its provisioner; a class that does not exist fails every attempt (ProvisioningFailed: storageclass.storage.k8s.io \"" + className + "\" not found)."
		f.Culprit = fmt.Sprintf("%s .spec.storageClassName %q (StorageClass not found)", pvcRef(pvc), className)
		recreate.Commands = append([]string{storageClassesCommand}, recreate.Commands...)
		f.Actions = []report.Action{recreate, {Kind: report.LongTerm, Description: "Or create the StorageClass the claim expects, if it should exist in this cluster.",
			Commands: []string{storageClassesCommand}}}
		return &f
	}
	if sc != nil {
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("StorageClass %s: provisioner %s, volumeBindingMode %s", sc.Name, sc.Provisioner, bindingMode(sc)),
			"storageclass/"+sc.Name, fmt.Sprintf("kubectl get storageclass %s -o yaml", sc.Name)))
	}

	waiting := ev.last["WaitForFirstConsumer"]
	wffc := (sc != nil && bindingMode(sc) == storagev1.VolumeBindingWaitForFirstConsumer) || (sc == nil && waiting != nil)
	if wffc && pvc.Annotations[annSelectedNode] == "" {
		if cc.pod != nil {
			// The pod is the consumer: the scheduler picks a node and the
			// volume follows, so the pod's scheduling finding speaks, unless
			// the class is static and no PV fits.
			if sc != nil && sc.Provisioner == NoProvisioner && podLacksPV(cc.pod) {
				return staticClaimFinding(c, cc, f, ev, className, sc)
			}
			return nil
		}
		return waitForConsumerFinding(c, cc, f, waiting, sc)
	}
	if sc != nil && sc.Provisioner == NoProvisioner {
		return staticClaimFinding(c, cc, f, ev, className, sc)
	}
	if failed != nil {
		if strings.Contains(failed.Message, "no volume plugin matched name: "+NoProvisioner) {
			return staticClaimFinding(c, cc, f, ev, className, sc)
		}
		f.Category = rule.PVC.Sub("Pending", "ProvisioningFailed")
		f.Confidence = rule.Strong
		f.Evidence = append(f.Evidence, claimEventEvidence(c, pvc, failed))
		prov := provisionerOf(sc, ev)
		f.Hypothesis = fmt.Sprintf("The provisioner of PVC %s fails to create its volume", pvc.Name)
		f.Title = fmt.Sprintf("PVC %s: provisioner %s fails to create the volume: %s", pvc.Name, prov, kube.FirstLine(failed.Message))
		f.Summary = fmt.Sprintf("The provisioner %s tried to create a volume for PVC %s and failed %d time(s); its last error: %q.", prov, pvc.Name, max(failed.Count, 1), kube.FirstLine(failed.Message))
		f.Mechanism = "The provisioner retries with back-off and records each failure as a ProvisioningFailed event; the claim stays Pending until a volume is created."
		f.Culprit = fmt.Sprintf("%s provisioning by %s: %s", pvcRef(pvc), prov, kube.FirstLine(failed.Message))
		f.Actions = []report.Action{{Kind: report.Immediate, Description: "Fix what the provisioner's error names (StorageClass parameters, cloud quota or permissions, the driver's health), then let it retry.",
			Commands: []string{fmt.Sprintf("kubectl describe pvc %s %s", pvc.Name, pvcNS(pvc)), fmt.Sprintf("kubectl get storageclass %s -o yaml", className)}}}
		if r, ok := refusedAccessMode(failed.Message, pvc); ok {
			f.Confidence = rule.Definitive
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("PVC %s accessModes: %s", pvc.Name, accessModesText(pvc.Spec.AccessModes)),
				pvcRef(pvc)+" .spec.accessModes", fmt.Sprintf("kubectl get pvc %s %s -o jsonpath='{.spec.accessModes}'", pvc.Name, pvcNS(pvc))))
			f.Hypothesis = fmt.Sprintf("PVC %s asks for access mode %s, which the driver of StorageClass %s does not support", pvc.Name, r.Mode, className)
			f.Title = fmt.Sprintf("PVC %s asks for access mode %s, which provisioner %s (StorageClass %s) does not support", pvc.Name, r.Mode, prov, className)
			f.Summary = fmt.Sprintf("PVC %s asks for access mode %s; provisioner %s of StorageClass %s refuses it and has failed %d time(s): %q.", pvc.Name, r.Mode, prov, className, max(failed.Count, 1), kube.FirstLine(failed.Message))
			if len(r.Supported) > 0 {
				f.Summary += fmt.Sprintf(" It supports %s.", accessModesText(r.Supported))
			}
			f.Mechanism = "The provisioner is asked for a volume with every access mode the claim lists (the CSI external-provisioner sends one volume capability per mode, in order); a driver that cannot offer one refuses the request, and retries fail the same way until the claim changes."
			f.Culprit = fmt.Sprintf("%s .spec.accessModes %s on StorageClass %s (provisioner %s does not support %s)", pvcRef(pvc), accessModesText(pvc.Spec.AccessModes), className, prov, r.Mode)
			f.Actions = accessModeActions(pvc, r, className)
		}
		if needsSelectedNode(failed.Message, sc) {
			bindingModeFinding(&f, pvc, sc, prov, failed)
		}
		if node, ok := goneSelectedNode(pvc, failed.Message); ok {
			selectedNodeFinding(&f, pvc, prov, node, failed)
		}
		return &f
	}
	if ext := ev.last["ExternalProvisioning"]; ext != nil {
		prov := provisionerOf(sc, ev)
		working := ev.last["Provisioning"] != nil || ev.last["ProvisioningSucceeded"] != nil
		since := c.Now.Sub(bundle.FirstSeen(ext))
		if !working && since >= provisionerSilence {
			f.Category = rule.PVC.Sub("Pending", "NoProvisioner")
			f.Confidence = rule.High
			f.Evidence = append(f.Evidence, claimEventEvidence(c, pvc, ext))
			f.Hypothesis = fmt.Sprintf("No external provisioner %s is running to create the volume of PVC %s", prov, pvc.Name)
			f.Title = fmt.Sprintf("PVC %s waits for external provisioner %s, which has not answered for %s", pvc.Name, prov, since.Round(time.Minute))
			f.Summary = fmt.Sprintf("The persistentvolume controller handed PVC %s to the external provisioner %s %s ago, and no provisioner has reported anything since (no Provisioning or ProvisioningFailed event): the CSI driver or provisioner for this class is not running, or does not handle the name %s.", pvc.Name, prov, since.Round(time.Minute), prov)
			f.Mechanism = "For a class whose provisioner is not built in, the controller only annotates the claim and waits (event ExternalProvisioning); the provisioner's own controller (e.g. the CSI external-provisioner sidecar) must pick it up and create the volume."
			f.Culprit = fmt.Sprintf("provisioner %s of StorageClass %s (not answering for %s)", prov, className, pvcRef(pvc))
			f.Actions = []report.Action{{Kind: report.Immediate, Description: "Check that the provisioner (CSI controller deployment) for this class is installed and running, and that its name matches the StorageClass's provisioner field exactly.",
				Commands: []string{"kubectl get csidrivers", "kubectl get pods -A | grep -i -E 'csi|provisioner'", fmt.Sprintf("kubectl get storageclass %s -o jsonpath='{.provisioner}'", className)}}}
			f = withProvisioner(c, f, pvc, prov)
			return &f
		}
		return &rule.Finding{Category: rule.PVC.Sub("Pending", "Provisioning"), Verdict: report.Inconclusive, Confidence: rule.Speculative, Subject: pvc.Name, Current: true,
			Hypothesis: fmt.Sprintf("The volume of PVC %s is still being provisioned by %s", pvc.Name, prov),
			Evidence:   append(f.Evidence, claimEventEvidence(c, pvc, ext))}
	}
	return &rule.Finding{Category: rule.PVC.Sub("Pending"), Verdict: report.Inconclusive, Confidence: rule.Slight, Subject: pvc.Name, Current: true,
		Hypothesis: fmt.Sprintf("PVC %s is Pending and no event says why", pvc.Name), Evidence: f.Evidence}
}

func bindingMode(sc *storagev1.StorageClass) storagev1.VolumeBindingMode {
	if sc.VolumeBindingMode == nil {
		return storagev1.VolumeBindingImmediate
	}
	return *sc.VolumeBindingMode
}

// provisionerOf names the claim's provisioner from its class or from the
// controller's ExternalProvisioning event.
func provisionerOf(sc *storagev1.StorageClass, ev claimEvents) string {
	if sc != nil {
		return sc.Provisioner
	}
	if e := ev.last["ExternalProvisioning"]; e != nil {
		if m, ok := submatch.Find(externalProvisionerRe, e.Message); ok {
			return m.Get("provisioner")
		}
	}
	return "?"
}

// podLacksPV: the scheduler says no PV fits the pod's WaitForFirstConsumer claims.
func podLacksPV(p *corev1.Pod) bool {
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && strings.Contains(cond.Message, "didn't find available persistent volumes to bind") {
			return true
		}
	}
	return false
}

func waitForConsumerFinding(c *rule.Pass, cc claimCase, f rule.Finding, waiting *corev1.Event, sc *storagev1.StorageClass) *rule.Finding {
	pvc := cc.pvc
	if waiting != nil {
		f.Evidence = append(f.Evidence, claimEventEvidence(c, pvc, waiting))
	}
	class := "its StorageClass"
	if sc != nil {
		class = "StorageClass " + sc.Name
	}
	f.Category = rule.PVC.Sub("Pending", "WaitForFirstConsumer")
	f.Confidence = rule.High
	f.Strength = rule.Observed
	f.Hypothesis = fmt.Sprintf("PVC %s is Pending only because %s binds on first use (WaitForFirstConsumer) — expected, not a fault", pvc.Name, class)
	f.Title = fmt.Sprintf("not a fault: PVC %s waits for its first consumer (%s uses volumeBindingMode WaitForFirstConsumer)", pvc.Name, class)
	f.Summary = fmt.Sprintf("PVC %s is Pending by design: %s delays binding and provisioning until a pod that uses the claim is scheduled, so the volume is created in that pod's zone/node. This is the expected state while no pod uses it.", pvc.Name, class)
	f.Mechanism = "With volumeBindingMode WaitForFirstConsumer the persistentvolume controller waits (event WaitForFirstConsumer: waiting for first consumer to be created before binding) until the scheduler picks a node for a pod using the claim and records it in the volume.kubernetes.io/selected-node annotation."
	f.Culprit = fmt.Sprintf("%s (no pod uses it yet; %s binds on first consumer)", pvcRef(pvc), class)
	f.Actions = []report.Action{{Kind: report.Check, Description: "Nothing to fix if no pod uses the claim yet. If a pod does use it and is Pending, triage that pod: its scheduling is what holds the claim.",
		Commands: []string{fmt.Sprintf("kubectl get pods %s -o custom-columns=NAME:.metadata.name,PHASE:.status.phase,CLAIMS:.spec.volumes[*].persistentVolumeClaim.claimName | grep -E 'NAME|%s'", pvcNS(pvc), pvc.Name)}}}
	if sc != nil && sc.Provisioner == NoProvisioner {
		f.Contributing = append(f.Contributing, fmt.Sprintf("StorageClass %s has no provisioner (%s): when a pod arrives, a pre-created PV of this class must fit it, or the pod will not schedule.", sc.Name, NoProvisioner))
		f.Actions = append(f.Actions, report.Action{Kind: report.Check, Description: "Check that a PersistentVolume of this class exists for the claim to bind to.",
			Commands: []string{fmt.Sprintf("kubectl get pv -o custom-columns=NAME:.metadata.name,CLASS:.spec.storageClassName,CAPACITY:.spec.capacity.storage,MODES:.spec.accessModes,STATUS:.status.phase | grep -E 'NAME|%s'", sc.Name)}})
	}
	return &f
}

// staticClaimFinding: a claim only a pre-created PV can satisfy (class "",
// or a class with no provisioner), and none fits.
func staticClaimFinding(c *rule.Pass, cc claimCase, f rule.Finding, ev claimEvents, className string, sc *storagev1.StorageClass) *rule.Finding {
	pvc := cc.pvc
	f.Category = rule.PVC.Sub("Pending", "NoMatchingPV")
	f.Confidence = rule.Likely
	for _, reason := range []string{"FailedBinding", "ProvisioningFailed"} {
		if e := ev.last[reason]; e != nil {
			f.Evidence = append(f.Evidence, claimEventEvidence(c, pvc, e))
			f.Confidence = rule.Strong
		}
	}
	if cc.pod != nil {
		for _, cond := range cc.pod.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
				f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod %s PodScheduled=False: %s", cc.pod.Name, cond.Message), kube.PodRef(cc.pod)+" .status.conditions[PodScheduled]",
					fmt.Sprintf("kubectl describe pod %s %s", cc.pod.Name, kube.NSFlag(cc.pod))))
				f.Confidence = rule.Strong
			}
		}
	}
	why := fmt.Sprintf("StorageClass %s has no provisioner (%s)", className, NoProvisioner)
	if sc == nil && className == "" {
		why = `it sets storageClassName "" (static binding only)`
	}
	mismatch := pvMismatches(c, pvc, className)
	detail := "no PersistentVolume of that class is available"
	if len(mismatch) > 0 {
		detail = mismatch[0]
	}
	f.Hypothesis = fmt.Sprintf("PVC %s can only bind a pre-created PV (%s) and none fits it", pvc.Name, why)
	f.Title = fmt.Sprintf("PVC %s needs a pre-created PV (%s) and none fits: %s", pvc.Name, why, detail)
	f.Summary = fmt.Sprintf("PVC %s (requests %s, %s) can only bind an existing PersistentVolume because %s, and %s.", pvc.Name, claimRequest(pvc), accessModes(pvc.Spec.AccessModes), why, detail)
	f.Mechanism = "Without a provisioner nothing creates volumes on demand: the persistentvolume controller (or the scheduler, for WaitForFirstConsumer) binds the claim only to an Available PV of the same class with at least the requested capacity and every requested access mode."
	f.Culprit = fmt.Sprintf("%s (requests %s %s, class %s): %s", pvcRef(pvc), claimRequest(pvc), accessModes(pvc.Spec.AccessModes), classText(pvc.Spec.StorageClassName), detail)
	f.Contributing = append(f.Contributing, mismatch...)
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: "Create a PersistentVolume of this class with enough capacity and the requested access modes (or use a class that provisions volumes).",
			Commands: []string{fmt.Sprintf("kubectl get pv -o custom-columns=NAME:.metadata.name,CLASS:.spec.storageClassName,CAPACITY:.spec.capacity.storage,MODES:.spec.accessModes,STATUS:.status.phase,CLAIM:.spec.claimRef.name"), storageClassesCommand}},
	}
	return &f
}

// pvMismatches compares the claim with the PVs in the bundle of its class
// and says, for the closest, what does not fit.
func pvMismatches(c *rule.Pass, pvc *corev1.PersistentVolumeClaim, className string) []string {
	type cand struct {
		pv   *corev1.PersistentVolume
		why  []string
		free bool
	}
	var cands []cand
	for _, pv := range c.B.PVs {
		if pv.Spec.StorageClassName != className {
			continue
		}
		var why []string
		if pv.Spec.ClaimRef != nil && (pv.Spec.ClaimRef.Name != pvc.Name || pv.Spec.ClaimRef.Namespace != pvc.Namespace) {
			why = append(why, fmt.Sprintf("is already claimed by %s/%s", pv.Spec.ClaimRef.Namespace, pv.Spec.ClaimRef.Name))
		}
		if want, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
			if have, ok := pv.Spec.Capacity[corev1.ResourceStorage]; !ok || have.Cmp(want) < 0 {
				why = append(why, fmt.Sprintf("offers %s, less than the %s requested", have.String(), want.String()))
			}
		}
		for _, m := range pvc.Spec.AccessModes {
			found := false
			for _, h := range pv.Spec.AccessModes {
				found = found || h == m
			}
			if !found {
				why = append(why, fmt.Sprintf("does not offer access mode %s (it has %s)", m, accessModes(pv.Spec.AccessModes)))
			}
		}
		if pvc.Spec.VolumeMode != nil && pv.Spec.VolumeMode != nil && *pvc.Spec.VolumeMode != *pv.Spec.VolumeMode {
			why = append(why, fmt.Sprintf("has volumeMode %s, the claim wants %s", *pv.Spec.VolumeMode, *pvc.Spec.VolumeMode))
		}
		cands = append(cands, cand{pv: pv, why: why})
	}
	sort.SliceStable(cands, func(i, j int) bool { return len(cands[i].why) < len(cands[j].why) })
	var out []string
	for _, cd := range cands {
		if len(cd.why) == 0 {
			continue // it would fit: the controller will bind it
		}
		out = append(out, fmt.Sprintf("PV %s %s", cd.pv.Name, strings.Join(cd.why, " and ")))
		if len(out) == 3 {
			break
		}
	}
	return out
}

// preboundClaimFinding: a claim that names its volume (spec.volumeName).
func preboundClaimFinding(c *rule.Pass, cc claimCase, f rule.Finding, ev claimEvents) *rule.Finding {
	pvc := cc.pvc
	name := pvc.Spec.VolumeName
	pv := VolumeNamed(c, name)
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("PVC %s asks for volume %s by name", pvc.Name, name), pvcRef(pvc)+" .spec.volumeName",
		fmt.Sprintf("kubectl get pvc %s %s -o jsonpath='{.spec.volumeName}'", pvc.Name, pvcNS(pvc))))
	fixCmds := []string{fmt.Sprintf("kubectl get pv %s -o wide", name)}
	switch {
	case pv == nil && c.B.IsMissing("PersistentVolume", "", name):
		f.Category = rule.PVC.Sub("Pending", "VolumeMissing")
		f.Confidence = rule.Strong
		f.Title = fmt.Sprintf("PVC %s is bound by name to PersistentVolume %s, which does not exist", pvc.Name, name)
		f.Culprit = fmt.Sprintf("%s .spec.volumeName %s (not found)", pvcRef(pvc), name)
		f.Mechanism = "A claim with spec.volumeName waits for exactly that PV; the persistentvolume controller retries until it appears."
	case pv != nil && pv.Spec.ClaimRef != nil && (pv.Spec.ClaimRef.Name != pvc.Name || pv.Spec.ClaimRef.Namespace != pvc.Namespace):
		f.Category = rule.PVC.Sub("Pending", "VolumeTaken")
		f.Confidence = rule.Strong
		f.Title = fmt.Sprintf("PVC %s asks for PersistentVolume %s, which is claimed by %s/%s", pvc.Name, name, pv.Spec.ClaimRef.Namespace, pv.Spec.ClaimRef.Name)
		f.Culprit = fmt.Sprintf("pv/%s .spec.claimRef %s/%s (wanted by %s)", name, pv.Spec.ClaimRef.Namespace, pv.Spec.ClaimRef.Name, pvcRef(pvc))
		f.Mechanism = "A PV binds to one claim only; a claim that names a PV bound elsewhere stays Pending."
	default:
		e := ev.last["VolumeMismatch"]
		if e == nil {
			return &rule.Finding{Category: rule.PVC.Sub("Pending"), Verdict: report.Inconclusive, Confidence: rule.Speculative, Subject: pvc.Name, Current: true,
				Hypothesis: fmt.Sprintf("PVC %s waits for its named volume %s", pvc.Name, name), Evidence: f.Evidence}
		}
		f.Evidence = append(f.Evidence, claimEventEvidence(c, pvc, e))
		f.Category = rule.PVC.Sub("Pending", "VolumeMismatch")
		f.Confidence = rule.Strong
		f.Title = fmt.Sprintf("PVC %s cannot bind its named volume %s: %s", pvc.Name, name, e.Message)
		f.Culprit = fmt.Sprintf("%s .spec.volumeName %s: %s", pvcRef(pvc), name, e.Message)
		f.Mechanism = "The persistentvolume controller binds a named PV only if its class, capacity, access modes and volume mode satisfy the claim."
	}
	f.Hypothesis = "Named volume: " + f.Title
	f.Summary = f.Title + "."
	f.Actions = []report.Action{{Kind: report.Immediate, Description: "Point the claim at a volume that exists, is free and fits it (recreate the claim: spec.volumeName cannot change), or fix the PV.",
		Commands: fixCmds}}
	return &f
}

func lostClaimFinding(c *rule.Pass, cc claimCase) rule.Finding {
	pvc := cc.pvc
	f := claimBase(c, cc)
	if e := eventsOfClaim(c, pvc).last["ClaimLost"]; e != nil {
		f.Evidence = append(f.Evidence, claimEventEvidence(c, pvc, e))
	}
	f.Category = rule.PVC.Sub("Lost")
	f.Confidence = rule.Strong
	f.Hypothesis = fmt.Sprintf("PVC %s lost its PersistentVolume %s", pvc.Name, kube.ValueOr(pvc.Spec.VolumeName, "?"))
	f.Title = fmt.Sprintf("PVC %s is Lost: its PersistentVolume %s no longer exists", pvc.Name, kube.ValueOr(pvc.Spec.VolumeName, "?"))
	f.Summary = fmt.Sprintf("PVC %s was bound to PersistentVolume %s, which has been deleted; the claim is Lost and pods using it cannot start.", pvc.Name, kube.ValueOr(pvc.Spec.VolumeName, "?"))
	f.Mechanism = "When the PV a bound claim points to disappears, the persistentvolume controller marks the claim Lost (event ClaimLost); it never rebinds by itself."
	f.Culprit = fmt.Sprintf("%s .spec.volumeName %s (deleted)", pvcRef(pvc), kube.ValueOr(pvc.Spec.VolumeName, "?"))
	f.Actions = []report.Action{{Kind: report.Immediate, Description: "Restore the volume (from the storage backend or a backup) as a PV bound to this claim, or delete and recreate the claim to start empty.",
		Commands: []string{fmt.Sprintf("kubectl get pv %s", kube.ValueOr(pvc.Spec.VolumeName, "")), fmt.Sprintf("kubectl describe pvc %s %s", pvc.Name, pvcNS(pvc))},
		Risk:     "recreating the claim provisions an empty volume: the old data is gone unless restored"}}
	return f
}
