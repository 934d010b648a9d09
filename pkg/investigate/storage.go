package investigate

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// Storage and config rules: PVCs, volume attach/mount, HPAs.

// Names the storage components use.
const (
	annDefaultStorageClass     = "storageclass.kubernetes.io/is-default-class"
	annDefaultStorageClassBeta = "storageclass.beta.kubernetes.io/is-default-class"
	annSelectedNode            = "volume.kubernetes.io/selected-node"
	noProvisioner              = "kubernetes.io/no-provisioner"
	storageClassesCommand      = "kubectl get storageclass"
	// provisionerSilence is how long a claim may wait for an external
	// provisioner before its silence is a finding rather than a delay.
	provisionerSilence = 2 * time.Minute
)

// The persistentvolume controller's event messages.
var (
	// "Waiting for a volume to be created either by the external provisioner 'x' or manually by the system administrator. …"
	// and the older `waiting for a volume to be created, either by external provisioner "x" or manually created by system administrator`.
	externalProvisionerRe = regexp.MustCompile(`(?i)waiting for a volume to be created,? either by (?:the )?external provisioner ['"]([^'"]+)['"]`)
	classNotFoundRe       = regexp.MustCompile(`storageclass\.storage\.k8s\.io "([^"]+)" not found`)
)

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
			if pvc := claimNamed(c, p.Namespace, v.PersistentVolumeClaim.ClaimName); pvc != nil {
				seen[pvc.Name] = true
				out = append(out, claimCase{pvc: pvc, pod: p})
			}
		}
	}
	return out
}

func claimNamed(c *rule.Pass, ns, name string) *corev1.PersistentVolumeClaim {
	for _, pvc := range c.B.PVCs {
		if pvc.Namespace == ns && pvc.Name == name {
			return pvc
		}
	}
	return nil
}

func volumeNamed(c *rule.Pass, name string) *corev1.PersistentVolume {
	for _, pv := range c.B.PVs {
		if pv.Name == name {
			return pv
		}
	}
	return nil
}

func storageClassNamed(c *rule.Pass, name string) *storagev1.StorageClass {
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
		if sc.Annotations[annDefaultStorageClass] == "true" || sc.Annotations[annDefaultStorageClassBeta] == "true" {
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
					Commands: []string{storageClassesCommand, fmt.Sprintf(`kubectl patch storageclass <class> -p '{"metadata":{"annotations":{"%s":"true"}}}'`, annDefaultStorageClass)},
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

	sc := storageClassNamed(c, className)
	failed := ev.last["ProvisioningFailed"]
	classMissing := c.B.IsMissing("StorageClass", "", className)
	if failed != nil {
		if m := classNotFoundRe.FindStringSubmatch(failed.Message); m != nil && m[1] == className {
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
			if sc != nil && sc.Provisioner == noProvisioner && podLacksPV(cc.pod) {
				return staticClaimFinding(c, cc, f, ev, className, sc)
			}
			return nil
		}
		return waitForConsumerFinding(c, cc, f, waiting, sc)
	}
	if sc != nil && sc.Provisioner == noProvisioner {
		return staticClaimFinding(c, cc, f, ev, className, sc)
	}
	if failed != nil {
		if strings.Contains(failed.Message, "no volume plugin matched name: "+noProvisioner) {
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
		if m := externalProvisionerRe.FindStringSubmatch(e.Message); m != nil {
			return m[1]
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
	if sc != nil && sc.Provisioner == noProvisioner {
		f.Contributing = append(f.Contributing, fmt.Sprintf("StorageClass %s has no provisioner (%s): when a pod arrives, a pre-created PV of this class must fit it, or the pod will not schedule.", sc.Name, noProvisioner))
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
					fmt.Sprintf("kubectl describe pod %s %s", cc.pod.Name, kube.NsFlag(cc.pod))))
				f.Confidence = rule.Strong
			}
		}
	}
	why := fmt.Sprintf("StorageClass %s has no provisioner (%s)", className, noProvisioner)
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
	pv := volumeNamed(c, name)
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

// volumeFailure is one row of the attach/mount failure table.
type volumeFailure struct {
	Class    string
	Reasons  []string
	re       *regexp.Regexp // named groups: vol (volume), detail
	Title    string         // %[1]s volume (with its source), %[2]s detail
	Mech     string
	Fix      string
	Conf     rule.Confidence
	Strength rule.Strength
}

// volumeFailures are matched against the pod's FailedAttachVolume,
// FailedMount and FailedScheduling events (kubelet, attach-detach
// controller, scheduler wording), most specific first.
var volumeFailures = []volumeFailure{
	{"Attach/MultiAttach", []string{"FailedAttachVolume"},
		regexp.MustCompile(`Multi-Attach error for volume "(?P<vol>[^"]+)"\s*(?P<detail>Volume is already (?:exclusively attached to one node and can't be attached to another|used by pod\(s\) [^\n]+))`),
		"volume %[1]s is still attached to another node (Multi-Attach): %[2]s",
		"A ReadWriteOnce volume attaches to one node at a time; the attach-detach controller will not attach it to this pod's node while another node (usually an old pod of the same workload, or a node that died) still holds it.",
		"Make sure the pod that holds the volume on the other node is gone (or the dead node's VolumeAttachment is cleaned up); for RWO volumes use strategy Recreate or a StatefulSet so two pods never want it at once.", rule.Strong, rule.Explained},
	{"Attach/Failed", []string{"FailedAttachVolume"},
		regexp.MustCompile(`AttachVolume\.Attach failed for volume "(?P<vol>[^"]+)"\s*:\s*(?P<detail>[^\n]+)`),
		"volume %[1]s cannot be attached to the node: %[2]s",
		"The attach-detach controller asks the volume driver to attach the disk to the pod's node; the driver refused or failed.",
		"Fix what the driver's error names (the disk's zone vs the node's, attach limits per node, driver health, cloud permissions).", rule.Likely, rule.Explained},
	{"Mount/ConfigMapMissing", []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*configmap "(?P<detail>[^"]+)" not found`),
		"volume %[1]s cannot mount: ConfigMap %[2]s does not exist",
		"The kubelet builds a configMap volume from the ConfigMap's keys before starting any container; while the ConfigMap does not exist, the pod stays in ContainerCreating.",
		"Create the ConfigMap in the pod's namespace, fix the name in the pod template, or mark the volume optional: true if the pod can run without it.", rule.Definitive, rule.Explained},
	{"Mount/SecretMissing", []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*secret "(?P<detail>[^"]+)" not found`),
		"volume %[1]s cannot mount: Secret %[2]s does not exist",
		"The kubelet builds a secret volume from the Secret's keys before starting any container; while the Secret does not exist, the pod stays in ContainerCreating.",
		"Create the Secret in the pod's namespace, fix the name in the pod template, or mark the volume optional: true if the pod can run without it.", rule.Definitive, rule.Explained},
	{"Mount/KeyMissing", []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*(?P<detail>(?:configmap|secret) references non-existent (?:config|secret) key: \S+)`),
		"volume %[1]s cannot mount: %[2]s",
		"The volume's items list a key the ConfigMap/Secret does not have; the kubelet refuses to build the volume.",
		"Add the key to the ConfigMap/Secret, or fix the key in the volume's items.", rule.Definitive, rule.Explained},
	{"Mount/NFS", []string{"FailedMount"},
		regexp.MustCompile(`(?s)MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*mount failed:.*?(?P<detail>mount(?:\.nfs4?)?: [^\n]+)`),
		"volume %[1]s cannot mount: the NFS mount fails: %[2]s",
		"The kubelet runs mount -t nfs on the node; the NFS server did not answer (timeout, no route), refused the export, or the path does not exist.",
		"Check from the node that the NFS server is reachable (TCP 2049, firewall, security groups), exports the path to the node's address, and that the node has NFS client utilities.", rule.High, rule.Explained},
	{"Mount/HostPath", []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*(?P<detail>hostPath type check failed: [^\n]+)`),
		"volume %[1]s cannot mount: %[2]s",
		"A hostPath volume with a type (Directory, File, Socket…) is checked on the node; the path is missing or of another type.",
		"Create the path on the node(s), fix the path, or use type DirectoryOrCreate.", rule.Strong, rule.Explained},
	{"Mount/Device", []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.MountDevice failed for volume "(?P<vol>[^"]+)"\s*:\s*(?P<detail>[^\n]+)`),
		"volume %[1]s cannot be mounted on the node: %[2]s",
		"The kubelet stages the attached device on the node (format, mount) before mounting it into the pod; the volume driver failed that step.",
		"Fix what the driver's error names (filesystem, device path, driver pod on the node).", rule.Probable, rule.Explained},
	{"Mount/SetUpFailed", []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*(?P<detail>[^\n]+)`),
		"volume %[1]s cannot mount: %[2]s",
		"The kubelet could not set the volume up for the pod; until it does, no container starts.",
		"Fix what the kubelet's error names.", rule.Probable, rule.Explained},
	{"ClaimMissing", []string{"FailedScheduling"},
		regexp.MustCompile(`persistentvolumeclaim "(?P<vol>[^"]+)" (?P<detail>not found)`),
		"the pod uses PersistentVolumeClaim %[1]s, which is %[2]s",
		"The scheduler will not place a pod whose claim does not exist.",
		"Create the claim (or fix claimName in the pod template); for a StatefulSet, check volumeClaimTemplates and the claim names it generates.", rule.Definitive, rule.Traced},
	{"Mount/Timeout", []string{"FailedMount"},
		regexp.MustCompile(`Unable to attach or mount volumes: unmounted volumes=\[(?P<vol>[^\]]*)\], unattached volumes=\[(?P<unattached>[^\]]*)\](?:, failed to process volumes=\[[^\]]*\])?: (?P<detail>[^\n]+)`),
		"volumes %[1]s did not attach or mount in time (%[2]s)",
		"The kubelet waits a bounded time for every volume to attach and mount before starting the containers, then gives up and retries; the error that blocks a volume is usually in a more specific event.",
		"Look at the pod's other FailedMount/FailedAttachVolume events and the volume's source (PVC binding, CSI driver on the node, ConfigMap/Secret existence).", rule.Fair, rule.Observed},
}

func (vf *volumeFailure) match(e *corev1.Event) (vol, detail, unattached string, ok bool) {
	found := false
	for _, r := range vf.Reasons {
		found = found || e.Reason == r
	}
	if !found {
		return "", "", "", false
	}
	m := vf.re.FindStringSubmatch(e.Message)
	if m == nil {
		return "", "", "", false
	}
	for i, name := range vf.re.SubexpNames() {
		switch name {
		case "vol":
			vol = m[i]
		case "detail":
			detail = strings.TrimSpace(m[i])
		case "unattached":
			unattached = m[i]
		}
	}
	return vol, detail, unattached, true
}

// podStuck: the pod has not started its containers (volumes are set up
// before any container starts), so a mount failure explains the present.
func podStuck(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodPending || p.Status.Phase == "" {
		return true
	}
	for _, cs := range kube.AllStatuses(p) {
		if w := cs.Status.State.Waiting; w != nil && (w.Reason == "ContainerCreating" || w.Reason == "PodInitializing") {
			return true
		}
	}
	return false
}

// volumeSource describes where a pod volume comes from, and the volume's
// name in the pod for a PV name (the attach-detach controller names PVs).
func volumeSource(c *rule.Pass, p *corev1.Pod, name string) (podVolume, source string) {
	for _, v := range p.Spec.Volumes {
		vs := v.VolumeSource
		var pvName string
		if vs.PersistentVolumeClaim != nil {
			if pvc := claimNamed(c, p.Namespace, vs.PersistentVolumeClaim.ClaimName); pvc != nil {
				pvName = pvc.Spec.VolumeName
			}
		}
		if v.Name != name && (pvName == "" || pvName != name) {
			continue
		}
		switch {
		case vs.ConfigMap != nil:
			return v.Name, "configMap " + vs.ConfigMap.Name
		case vs.Secret != nil:
			return v.Name, "secret " + vs.Secret.SecretName
		case vs.PersistentVolumeClaim != nil:
			s := "PVC " + vs.PersistentVolumeClaim.ClaimName
			if pvName != "" {
				s += ", PV " + pvName
			}
			return v.Name, s
		case vs.NFS != nil:
			return v.Name, fmt.Sprintf("NFS %s:%s", vs.NFS.Server, vs.NFS.Path)
		case vs.HostPath != nil:
			return v.Name, "hostPath " + vs.HostPath.Path
		case vs.CSI != nil:
			return v.Name, "CSI " + vs.CSI.Driver
		case vs.Projected != nil:
			return v.Name, "projected"
		case vs.EmptyDir != nil:
			return v.Name, "emptyDir"
		}
		return v.Name, ""
	}
	return name, ""
}

// checkVolumeEvents: a pod whose volumes cannot attach or mount, named
// volume by volume with what is missing.
func checkVolumeEvents(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		type hit struct {
			vf     *volumeFailure
			e      corev1.Event
			vol    string
			detail string
			unatt  string
		}
		var hits []hit
		seen := map[string]bool{}
		for _, e := range c.B.EventsFor(string(p.UID)) {
			for i := range volumeFailures {
				vf := &volumeFailures[i]
				vol, detail, unatt, ok := vf.match(&e)
				if !ok {
					continue
				}
				key := vf.Class + "\x00" + vol
				if !seen[key] {
					seen[key] = true
					hits = append(hits, hit{vf, e, vol, detail, unatt})
				} else {
					for j := range hits { // keep the newest occurrence
						if hits[j].vf == vf && hits[j].vol == vol {
							hits[j].e, hits[j].detail = e, detail
						}
					}
				}
				break
			}
		}
		specific := 0
		for _, h := range hits {
			if h.vf.Class != "Mount/Timeout" {
				specific++
			}
		}
		var timeouts []string
		for _, h := range hits {
			if h.vf.Class == "Mount/Timeout" {
				timeouts = append(timeouts, c.Evidence(fmt.Sprintf("Event %s ×%d: %s", h.e.Reason, max(h.e.Count, 1), kube.FirstLine(h.e.Message)), "event on "+kube.PodRef(p),
					fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", kube.NsFlag(p), p.Name, h.e.Reason)))
			}
		}
		for _, h := range hits {
			if h.vf.Class == "Mount/Timeout" && specific > 0 {
				continue // the specific event says why; the timeout only repeats it
			}
			f := volumeFinding(c, p, h.vf, h.e, h.vol, h.detail, h.unatt)
			if h.vf.Class != "Mount/Timeout" {
				f.Evidence = append(f.Evidence, timeouts...)
			}
			out = append(out, f)
		}
	}
	return out
}

func volumeFinding(c *rule.Pass, p *corev1.Pod, vf *volumeFailure, e corev1.Event, vol, detail, unattached string) rule.Finding {
	kind, owner := kube.OwnerName(c, p)
	podVol, source := volumeSource(c, p, vol)
	named := podVol
	if source != "" {
		named = fmt.Sprintf("%s (%s)", podVol, source)
	}
	if vf.Class == "Mount/Timeout" {
		named = "[" + vol + "]"
		var parts []string
		for _, v := range strings.Fields(vol) {
			if pv, src := volumeSource(c, p, v); src != "" {
				parts = append(parts, fmt.Sprintf("%s (%s)", pv, src))
			} else {
				parts = append(parts, v)
			}
		}
		if len(parts) > 0 {
			named = strings.Join(parts, ", ")
		}
	}
	if vf.Class == "ClaimMissing" {
		named = vol
	}
	title := fmt.Sprintf(vf.Title, named, detail)
	f := rule.Finding{
		Category: rule.Volume.Sub(vf.Class), Verdict: report.Validated, Confidence: vf.Conf, Strength: vf.Strength,
		Current: podStuck(p), Subject: p.Name + "/" + podVol,
		Evidence: []string{c.Evidence(fmt.Sprintf("Event %s ×%d: %s", e.Reason, max(e.Count, 1), kube.FirstLine(e.Message)), "event on "+kube.PodRef(p),
			fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", kube.NsFlag(p), p.Name, e.Reason))},
		Hypothesis: fmt.Sprintf("Pod %s cannot start because %s", p.Name, title),
		Title:      title,
		Summary:    fmt.Sprintf("Pod %s cannot start its containers because %s.", p.Name, title),
		Mechanism:  vf.Mech,
		Culprit:    fmt.Sprintf("%s volume %s: %s", kube.PodRef(p), named, detail),
	}
	if source != "" {
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod volume %s comes from %s", podVol, source), kube.PodRef(p)+" .spec.volumes["+podVol+"]",
			fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.volumes[?(@.name=="%s")]}'`, p.Name, kube.NsFlag(p), podVol)))
	}
	if !f.Current {
		// Volumes are set up before any container starts: a pod that runs
		// got past this failure, which is history and no cause.
		f.Verdict = report.Refuted
		f.Hypothesis += " (resolved: the pod has started since)"
	}
	fix := report.Action{Kind: report.Immediate, Description: vf.Fix,
		Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NsFlag(p))}}
	switch vf.Class {
	case "Mount/ConfigMapMissing":
		if c.B.IsMissing("ConfigMap", p.Namespace, detail) {
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("ConfigMap %s/%s does not exist (404)", p.Namespace, detail), "configmap/"+detail,
				fmt.Sprintf("kubectl get configmap %s %s", detail, kube.NsFlag(p))))
		}
		f.Culprit = fmt.Sprintf("%s volume %s → configmap %s (not found)", kube.PodRef(p), podVol, detail)
		fix.Commands = []string{fmt.Sprintf("kubectl get configmaps %s", kube.NsFlag(p)), fmt.Sprintf("kubectl create configmap %s %s --from-file=<file>", detail, kube.NsFlag(p))}
		fix.Risk = "the pod starts with whatever the new ConfigMap holds"
	case "Mount/SecretMissing":
		f.Culprit = fmt.Sprintf("%s volume %s → secret %s (not found)", kube.PodRef(p), podVol, detail)
		fix.Commands = []string{fmt.Sprintf("kubectl get secrets %s", kube.NsFlag(p)), fmt.Sprintf("kubectl create secret generic %s %s --from-file=<file>", detail, kube.NsFlag(p))}
		fix.Risk = "the pod starts with whatever the new Secret holds"
	case "Attach/MultiAttach":
		pvName := vol
		fix.Commands = []string{
			fmt.Sprintf("kubectl get volumeattachments -o custom-columns=NAME:.metadata.name,PV:.spec.source.persistentVolumeName,NODE:.spec.nodeName,ATTACHED:.status.attached | grep -E 'NAME|%s'", pvName),
			fmt.Sprintf("kubectl get pods %s -o wide", kube.NsFlag(p)),
		}
		fix.Risk = "never force-detach a volume a running pod still writes to: it corrupts the filesystem"
		f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm, Description: "Use a rollout strategy that stops the old pod before starting the new one for ReadWriteOnce volumes.",
			Commands: []string{fmt.Sprintf(`kubectl patch %s/%s %s --type=merge -p '{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}'`, kind, owner, kube.NsFlag(p))},
			Risk:     "Recreate means a short outage at each rollout"})
		if kind != "deployment" {
			f.Actions = nil
		}
	case "Mount/Timeout":
		if unattached != "" {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Volumes not yet attached: [%s].", unattached))
		}
		f.Culprit = fmt.Sprintf("%s volumes %s", kube.PodRef(p), named)
	case "ClaimMissing":
		f.Culprit = fmt.Sprintf("%s .spec.volumes[*].persistentVolumeClaim.claimName %s (not found)", kube.PodRef(p), vol)
		fix.Commands = []string{fmt.Sprintf("kubectl get pvc %s", kube.NsFlag(p))}
	}
	f.Actions = append([]report.Action{fix}, f.Actions...)
	return f
}

// hpaProblem is one row of the HPA metric-failure table, matched against
// the ScalingActive=False message and the controller's warning events.
type hpaProblem struct {
	Class string
	re    *regexp.Regexp
	Title string // %[1]s hpa name, %[2]s the matched detail
	Mech  string
	Conf  rule.Confidence
}

var hpaProblems = []hpaProblem{
	{"MissingRequest", regexp.MustCompile(`missing request for (?P<res>[a-z.\-/]+) in container "?(?P<ctr>[^" ]+)"? of Pod "?(?P<pod>[^" ]+)"?`),
		"", // built from the groups
		"Resource utilization is usage divided by request; the HPA controller cannot compute it for a container that has no request for that resource, so it does not scale at all.", rule.Definitive},
	{"MetricsAPIUnavailable", regexp.MustCompile(`unable to fetch metrics from resource metrics API: (?P<detail>[^\n]*(?:could not find the requested resource|currently unable to handle the request|no endpoints available|service unavailable|connection refused)[^\n]*)`),
		"HPA %[1]s cannot read pod metrics: the resource metrics API (metrics.k8s.io) is not served — metrics-server is missing or down (%[2]s)",
		"The HPA controller reads CPU/memory usage from the metrics.k8s.io API, which metrics-server provides through an APIService; without it no utilization can be computed.", rule.Strong},
	{"NoMetrics", regexp.MustCompile(`(?P<detail>did not receive metrics for (?:targeted|any ready) pods[^\n]*|no metrics returned from resource metrics API[^\n]*)`),
		"HPA %[1]s gets no metrics for its pods: %[2]s",
		"The metrics API answers but holds no samples for the target's pods: they are not running or not ready yet, or metrics-server cannot scrape their node's kubelet.", rule.Plausible},
	{"CustomMetricsUnavailable", regexp.MustCompile(`(?P<detail>unable to (?:fetch|get) (?:external )?metrics? (?:from|for) (?:custom|external) metrics API[^\n]*|unable to get external metric[^\n]*|unable to get metric [^\n]+)`),
		"HPA %[1]s cannot read its custom/external metric: %[2]s",
		"Custom and external metrics come from an adapter (prometheus-adapter, KEDA, a cloud adapter) registered as an APIService; it is missing, down, or does not know the metric.", rule.High},
}

func hpaRef(h *autoscalingv2.HorizontalPodAutoscaler) string { return "hpa/" + h.Name }

func hpaNS(h *autoscalingv2.HorizontalPodAutoscaler) string { return "-n " + h.Namespace }

func hpaCondition(h *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
	for i := range h.Status.Conditions {
		if h.Status.Conditions[i].Type == t {
			return &h.Status.Conditions[i]
		}
	}
	return nil
}

// hpasToCheck: the HPA target, or the HPAs scaling a workload target (their
// faults matter to it, their limits do not).
func hpasToCheck(c *rule.Pass) (list []*autoscalingv2.HorizontalPodAutoscaler, isTarget bool) {
	if h := kube.TargetOf(c, "HorizontalPodAutoscaler", c.B.HPAs); h != nil {
		return []*autoscalingv2.HorizontalPodAutoscaler{h}, true
	}
	t := c.B.Target
	for _, h := range c.B.HPAs {
		if h.Namespace == t.Namespace && h.Spec.ScaleTargetRef.Kind == t.Kind && h.Spec.ScaleTargetRef.Name == t.Name {
			list = append(list, h)
		}
	}
	return list, false
}

// checkHPAs: an HPA that cannot compute a replica count or cannot scale its
// target, and, honestly, an HPA that is only at a limit it was given.
func checkHPAs(c *rule.Pass) []rule.Finding {
	hpas, isTarget := hpasToCheck(c)
	var out []rule.Finding
	for _, h := range hpas {
		fs := hpaFindings(c, h, isTarget)
		if !isTarget {
			for i := range fs {
				fs[i].Strength = rule.Symptom // context for the workload, not the cause of its pods' trouble
			}
		}
		out = append(out, fs...)
	}
	return out
}

func hpaFindings(c *rule.Pass, h *autoscalingv2.HorizontalPodAutoscaler, isTarget bool) []rule.Finding {
	condEv := func(cond *autoscalingv2.HorizontalPodAutoscalerCondition) string {
		return c.Evidence(fmt.Sprintf("Condition %s=%s (%s): %s", cond.Type, cond.Status, cond.Reason, cond.Message), hpaRef(h)+" .status.conditions["+string(cond.Type)+"]",
			fmt.Sprintf(`kubectl get hpa %s %s -o jsonpath='{.status.conditions[?(@.type=="%s")]}'`, h.Name, hpaNS(h), cond.Type))
	}
	target := fmt.Sprintf("%s/%s", strings.ToLower(h.Spec.ScaleTargetRef.Kind), h.Spec.ScaleTargetRef.Name)
	base := rule.Finding{Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: h.Name}
	var out []rule.Finding

	if cond := hpaCondition(h, autoscalingv2.AbleToScale); cond != nil && cond.Status == corev1.ConditionFalse {
		switch cond.Reason {
		case "FailedGetScale":
			f := base
			f.Category = rule.HPA.Sub("ScaleTargetMissing")
			f.Confidence = rule.High
			f.Evidence = []string{condEv(cond)}
			if c.B.IsMissing(h.Spec.ScaleTargetRef.Kind, h.Namespace, h.Spec.ScaleTargetRef.Name) || strings.Contains(cond.Message, "not found") {
				f.Confidence = rule.Definitive
			}
			f.Hypothesis = fmt.Sprintf("HPA %s cannot read the scale of its target %s", h.Name, target)
			f.Title = fmt.Sprintf("HPA %s cannot scale: its target %s cannot be read (%s)", h.Name, target, cond.Message)
			f.Summary = fmt.Sprintf("HPA %s points at %s, whose scale subresource the controller cannot read: %s. It does nothing until the target exists.", h.Name, target, cond.Message)
			f.Mechanism = "The HPA controller reads and writes the target's /scale subresource; a wrong kind, name or apiVersion in scaleTargetRef, or a deleted workload, makes every attempt fail."
			f.Culprit = fmt.Sprintf("%s .spec.scaleTargetRef %s (%s)", hpaRef(h), target, cond.Message)
			f.Actions = []report.Action{{Kind: report.Immediate, Description: "Point scaleTargetRef at the workload that exists (kind, name and apiVersion), or delete the HPA if the workload is gone.",
				Commands: []string{fmt.Sprintf("kubectl get deployments,statefulsets %s", hpaNS(h)), fmt.Sprintf("kubectl edit hpa %s %s", h.Name, hpaNS(h))}}}
			out = append(out, f)
		case "FailedUpdateScale":
			f := base
			f.Category = rule.HPA.Sub("FailedUpdateScale")
			f.Confidence = rule.High
			f.Evidence = []string{condEv(cond)}
			f.Hypothesis = fmt.Sprintf("HPA %s cannot update the replica count of %s", h.Name, target)
			f.Title = fmt.Sprintf("HPA %s cannot update the scale of %s: %s", h.Name, target, cond.Message)
			f.Summary = f.Title + "."
			f.Mechanism = "The HPA computed a replica count but writing it to the target's /scale subresource failed (admission webhook, quota, RBAC of the controller)."
			f.Culprit = fmt.Sprintf("%s scale update of %s: %s", hpaRef(h), target, cond.Message)
			f.Actions = []report.Action{{Kind: report.Check, Description: "Read the error: an admission webhook or policy rejecting replica changes is the usual cause.",
				Commands: []string{fmt.Sprintf("kubectl describe hpa %s %s", h.Name, hpaNS(h))}}}
			out = append(out, f)
		}
	}

	if cond := hpaCondition(h, autoscalingv2.ScalingActive); cond != nil && cond.Status == corev1.ConditionFalse {
		if cond.Reason == "ScalingDisabled" {
			if isTarget {
				f := base
				f.Category = rule.HPA.Sub("ScalingDisabled")
				f.Confidence = rule.High
				f.Strength = rule.Symptom
				f.Evidence = []string{condEv(cond)}
				f.Hypothesis = fmt.Sprintf("HPA %s is disabled because %s was scaled to zero", h.Name, target)
				f.Title = fmt.Sprintf("not a fault: HPA %s is paused because %s has 0 replicas", h.Name, target)
				f.Summary = fmt.Sprintf("HPA %s does nothing while its target %s is scaled to 0 (%s). Someone scaled it down on purpose, or another tool did; the HPA resumes when replicas > 0.", h.Name, target, cond.Message)
				f.Mechanism = "The HPA controller never scales a target up from zero replicas: zero means 'off'."
				f.Culprit = fmt.Sprintf("%s replicas 0 (HPA %s disabled)", target, h.Name)
				f.Actions = []report.Action{{Kind: report.Check, Description: "If the workload should run, scale it back to at least minReplicas.",
					Commands: []string{fmt.Sprintf("kubectl scale %s %s --replicas=%d", target, hpaNS(h), minReplicas(h))},
					Risk:     "starts the workload's pods"}}
				out = append(out, f)
			}
		} else {
			out = append(out, metricFinding(c, h, cond, condEv(cond), base, target))
		}
	}

	if cond := hpaCondition(h, autoscalingv2.ScalingLimited); isTarget && len(out) == 0 && cond != nil && cond.Status == corev1.ConditionTrue {
		f := base
		f.Strength = rule.Symptom
		f.Confidence = rule.High
		f.Evidence = []string{condEv(cond)}
		metrics := hpaMetricsText(h)
		if metrics != "" {
			f.Evidence = append(f.Evidence, c.Evidence("Current metrics: "+metrics, hpaRef(h)+" .status.currentMetrics",
				fmt.Sprintf("kubectl get hpa %s %s", h.Name, hpaNS(h))))
		}
		switch cond.Reason {
		case "TooManyReplicas":
			f.Category = rule.HPA.Sub("Limited", "MaxReplicas")
			f.Hypothesis = fmt.Sprintf("HPA %s wants more replicas than its maxReplicas %d allows", h.Name, h.Spec.MaxReplicas)
			f.Title = fmt.Sprintf("not a fault: HPA %s is capped at maxReplicas %d and wants more", h.Name, h.Spec.MaxReplicas)
			f.Summary = fmt.Sprintf("HPA %s works: it computed a desired replica count above its maxReplicas (%d) and runs %d replicas. That is the limit it was given, not a failure. %s",
				h.Name, h.Spec.MaxReplicas, h.Status.CurrentReplicas, kube.ValueOr(metricsSentence(metrics), ""))
			f.Mechanism = "ScalingLimited=True/TooManyReplicas means the metric is above target even at the maximum; more pods would be created if the limit allowed. If latency or errors rise, the limit, the per-pod capacity or the target value needs a decision."
			f.Culprit = fmt.Sprintf("%s .spec.maxReplicas %d (limit reached)", hpaRef(h), h.Spec.MaxReplicas)
			f.Actions = []report.Action{{Kind: report.Check, Description: "If the load is real and the cluster has room, raise maxReplicas; otherwise look at why each pod uses so much (kubectl top).",
				Commands: []string{fmt.Sprintf(`kubectl patch hpa %s %s --type=merge -p '{"spec":{"maxReplicas":%d}}'`, h.Name, hpaNS(h), h.Spec.MaxReplicas*2), fmt.Sprintf("kubectl top pods %s", hpaNS(h))},
				Risk:     "more replicas consume more cluster capacity and may hit quotas"}}
		case "TooFewReplicas":
			f.Category = rule.HPA.Sub("Limited", "MinReplicas")
			f.Hypothesis = fmt.Sprintf("HPA %s would scale below its minReplicas %d", h.Name, minReplicas(h))
			f.Title = fmt.Sprintf("not a fault: HPA %s stays at minReplicas %d while load is low", h.Name, minReplicas(h))
			f.Summary = fmt.Sprintf("HPA %s would run fewer pods than minReplicas (%d) for the current load; it keeps the minimum it was given. Nothing is broken.", h.Name, minReplicas(h))
			f.Mechanism = "ScalingLimited=True/TooFewReplicas means the metric is below target even at the minimum."
			f.Culprit = fmt.Sprintf("%s .spec.minReplicas %d (floor reached)", hpaRef(h), minReplicas(h))
			f.Actions = []report.Action{{Kind: report.Check, Description: "Lower minReplicas only if fewer pods are acceptable for availability.",
				Commands: []string{fmt.Sprintf("kubectl get hpa %s %s", h.Name, hpaNS(h))}}}
		default:
			f.Category = rule.HPA.Sub("Limited", "Rate")
			f.Hypothesis = fmt.Sprintf("HPA %s is held back by its scaling rate limits", h.Name)
			f.Title = fmt.Sprintf("not a fault: HPA %s is limited by its scaling rate (%s)", h.Name, cond.Reason)
			f.Summary = fmt.Sprintf("HPA %s is scaling, but no faster than its behavior policies allow (%s: %s).", h.Name, cond.Reason, cond.Message)
			f.Mechanism = "Scale-up and scale-down rates are bounded by spec.behavior (or the defaults) so a noisy metric does not thrash the workload."
			f.Culprit = fmt.Sprintf("%s .spec.behavior (%s)", hpaRef(h), cond.Reason)
			f.Actions = []report.Action{{Kind: report.Check, Description: "Widen spec.behavior's policies if the workload must react faster.",
				Commands: []string{fmt.Sprintf("kubectl get hpa %s %s -o jsonpath='{.spec.behavior}'", h.Name, hpaNS(h))}}}
		}
		out = append(out, f)
	}

	if len(out) == 0 && isTarget {
		if cond := hpaCondition(h, autoscalingv2.ScalingActive); cond != nil && cond.Status == corev1.ConditionTrue {
			out = append(out, rule.Finding{Category: rule.HPA.Sub("MetricsFailed"), Verdict: report.Refuted, Confidence: rule.Strong, Subject: h.Name,
				Hypothesis: fmt.Sprintf("HPA %s cannot compute a replica count", h.Name), Evidence: []string{condEv(cond)}})
		}
	}
	return out
}

func minReplicas(h *autoscalingv2.HorizontalPodAutoscaler) int32 {
	if h.Spec.MinReplicas != nil {
		return *h.Spec.MinReplicas
	}
	return 1
}

func metricsSentence(m string) string {
	if m == "" {
		return ""
	}
	return "Current metrics: " + m + "."
}

// hpaMetricsText renders current vs target for resource metrics.
func hpaMetricsText(h *autoscalingv2.HorizontalPodAutoscaler) string {
	targets := map[corev1.ResourceName]string{}
	for _, m := range h.Spec.Metrics {
		if m.Resource != nil && m.Resource.Target.AverageUtilization != nil {
			targets[m.Resource.Name] = fmt.Sprintf("%d%%", *m.Resource.Target.AverageUtilization)
		}
	}
	var parts []string
	for _, m := range h.Status.CurrentMetrics {
		if m.Resource == nil || m.Resource.Current.AverageUtilization == nil {
			continue
		}
		s := fmt.Sprintf("%s %d%%", m.Resource.Name, *m.Resource.Current.AverageUtilization)
		if t, ok := targets[m.Resource.Name]; ok {
			s += " (target " + t + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// metricFinding explains ScalingActive=False from its message and the
// controller's warning events.
func metricFinding(c *rule.Pass, h *autoscalingv2.HorizontalPodAutoscaler, cond *autoscalingv2.HorizontalPodAutoscalerCondition, condEv string, base rule.Finding, target string) rule.Finding {
	f := base
	f.Evidence = []string{condEv}
	text := cond.Message
	for _, e := range c.B.EventsFor(string(h.UID)) {
		if e.Type == corev1.EventTypeWarning && strings.HasPrefix(e.Reason, "Failed") {
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Event %s ×%d: %s", e.Reason, max(e.Count, 1), e.Message), "event on "+hpaRef(h),
				fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", hpaNS(h), h.Name, e.Reason)))
			text += "\n" + e.Message
		}
	}
	var match *hpaProblem
	var m []string
	for i := range hpaProblems {
		if m = hpaProblems[i].re.FindStringSubmatch(text); m != nil {
			match = &hpaProblems[i]
			break
		}
	}
	describe := fmt.Sprintf("kubectl describe hpa %s %s", h.Name, hpaNS(h))
	if match == nil {
		f.Category = rule.HPA.Sub("MetricsFailed")
		f.Confidence = rule.Moderate
		f.Hypothesis = fmt.Sprintf("HPA %s cannot compute a replica count (%s)", h.Name, cond.Reason)
		f.Title = fmt.Sprintf("HPA %s cannot compute a replica count: %s", h.Name, cond.Message)
		f.Summary = fmt.Sprintf("HPA %s does not scale %s because it cannot compute a replica count (%s): %s.", h.Name, target, cond.Reason, cond.Message)
		f.Mechanism = "Without a valid metric the HPA keeps the current replica count and retries every sync period."
		f.Culprit = fmt.Sprintf("%s metrics (%s)", hpaRef(h), cond.Reason)
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the HPA's events and its metric sources.", Commands: []string{describe}}}
		return f
	}
	group := func(name string) string {
		if i := match.re.SubexpIndex(name); i >= 0 {
			return m[i]
		}
		return ""
	}
	f.Category = rule.HPA.Sub(match.Class)
	f.Confidence = match.Conf
	f.Mechanism = match.Mech
	switch match.Class {
	case "MissingRequest":
		res, ctr, pod := group("res"), group("ctr"), group("pod")
		f.Hypothesis = fmt.Sprintf("HPA %s cannot compute %s utilization because container %s has no %s request", h.Name, res, ctr, res)
		workload, lacking, ev := templateRequests(c, h, corev1.ResourceName(res))
		if ev != "" {
			f.Evidence = append(f.Evidence, ev)
		} else {
			f.Confidence = rule.Strong // the controller's message alone
		}
		if len(lacking) == 0 {
			lacking = []string{ctr}
		}
		f.Title = fmt.Sprintf("HPA %s cannot scale: container %s of %s has no %s request, so %s utilization cannot be computed", h.Name, ctr, target, res, res)
		f.Summary = fmt.Sprintf("HPA %s scales %s on %s utilization, but container %s (pod %s) sets no resources.requests.%s. Utilization is a percentage of the request, so the controller gives up and never scales.", h.Name, target, res, ctr, pod, res)
		f.Culprit = fmt.Sprintf("%s container %s resources.requests.%s (unset)", kube.ValueOr(workload, target), ctr, res)
		if len(lacking) > 1 {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Containers without a %s request: %s; each needs one.", res, strings.Join(lacking, ", ")))
		}
		var cmds []string
		for _, name := range lacking {
			cmds = append(cmds, fmt.Sprintf("kubectl set resources %s %s -c %s --requests=%s=<typical usage, e.g. 100m>", target, hpaNS(h), name, res))
		}
		f.Actions = []report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Give every container of %s a %s request (its typical usage).", target, res),
			Commands: cmds, Risk: kube.TemplateRisk(strings.ToLower(h.Spec.ScaleTargetRef.Kind), "starts a rollout") + "; requests also reserve capacity on the nodes"}}
	case "MetricsAPIUnavailable":
		f.Hypothesis = fmt.Sprintf("HPA %s cannot read pod metrics because the resource metrics API is not available", h.Name)
		f.Title = fmt.Sprintf(match.Title, h.Name, group("detail"))
		f.Summary = fmt.Sprintf("HPA %s cannot fetch CPU/memory usage from metrics.k8s.io (%s), so it never scales %s. The cluster needs a running metrics-server.", h.Name, group("detail"), target)
		f.Culprit = "APIService v1beta1.metrics.k8s.io (metrics-server): " + group("detail")
		f.Actions = []report.Action{
			{Kind: report.Check, Description: "Check whether the metrics API is registered and available.",
				Commands: []string{"kubectl get apiservice v1beta1.metrics.k8s.io", "kubectl get deployment metrics-server -n kube-system"}},
			{Kind: report.Immediate, Description: "Install (or repair) metrics-server.",
				Commands: []string{"kubectl apply -f https://github.com/kubernetes-sigs/metrics-server/releases/latest/download/components.yaml"},
				Risk:     "installs a cluster-wide component; review the manifest and its flags (e.g. kubelet TLS) for your cluster"},
		}
	case "NoMetrics":
		f.Hypothesis = fmt.Sprintf("HPA %s receives no metrics for the pods of %s", h.Name, target)
		f.Title = fmt.Sprintf(match.Title, h.Name, group("detail"))
		f.Summary = fmt.Sprintf("HPA %s reaches the metrics API but gets no samples for the pods of %s (%s): they may not be running or ready, or metrics-server cannot scrape them.", h.Name, target, group("detail"))
		f.Culprit = fmt.Sprintf("metrics of the pods of %s: %s", target, group("detail"))
		f.Actions = []report.Action{{Kind: report.Check, Description: "Check the pods are Running and Ready, and that metrics-server reports them.",
			Commands: []string{fmt.Sprintf("kubectl top pods %s", hpaNS(h)), "kubectl logs -n kube-system deployment/metrics-server --tail=50"}}}
	case "CustomMetricsUnavailable":
		f.Hypothesis = fmt.Sprintf("HPA %s cannot read a custom or external metric", h.Name)
		f.Title = fmt.Sprintf(match.Title, h.Name, group("detail"))
		f.Summary = fmt.Sprintf("HPA %s scales %s on a metric served by an adapter, and reading it fails: %s.", h.Name, target, group("detail"))
		f.Culprit = fmt.Sprintf("%s .spec.metrics (custom/external metric): %s", hpaRef(h), group("detail"))
		f.Actions = []report.Action{{Kind: report.Check, Description: "Check the metrics adapter's APIService and that it exposes the metric name the HPA asks for.",
			Commands: []string{"kubectl get apiservices | grep -E 'custom.metrics|external.metrics'", "kubectl get --raw /apis/custom.metrics.k8s.io/v1beta1 | head -c 2000"}}}
	}
	return f
}

// templateRequests reads the scale target's pod template: which containers
// lack a request for res.
func templateRequests(c *rule.Pass, h *autoscalingv2.HorizontalPodAutoscaler, res corev1.ResourceName) (workload string, lacking []string, evidence string) {
	ref := h.Spec.ScaleTargetRef
	var spec *corev1.PodSpec
	switch ref.Kind {
	case "Deployment":
		for _, d := range c.B.Deployments {
			if d.Name == ref.Name && d.Namespace == h.Namespace {
				spec = &d.Spec.Template.Spec
			}
		}
	case "StatefulSet":
		for _, s := range c.B.StatefulSets {
			if s.Name == ref.Name && s.Namespace == h.Namespace {
				spec = &s.Spec.Template.Spec
			}
		}
	case "ReplicaSet":
		for _, rs := range c.B.ReplicaSets {
			if rs.Name == ref.Name && rs.Namespace == h.Namespace {
				spec = &rs.Spec.Template.Spec
			}
		}
	}
	if spec == nil {
		return "", nil, ""
	}
	workload = fmt.Sprintf("%s/%s", strings.ToLower(ref.Kind), ref.Name)
	var have []string
	for _, ctr := range spec.Containers {
		if q, ok := ctr.Resources.Requests[res]; ok {
			have = append(have, fmt.Sprintf("%s=%s", ctr.Name, q.String()))
		} else {
			lacking = append(lacking, ctr.Name)
		}
	}
	fact := fmt.Sprintf("%s pod template: containers without a %s request: %s", workload, res, kube.ValueOr(strings.Join(lacking, ", "), "none"))
	if len(have) > 0 {
		fact += fmt.Sprintf("; with: %s", strings.Join(have, ", "))
	}
	evidence = c.Evidence(fact, workload+" .spec.template.spec.containers[*].resources.requests",
		fmt.Sprintf(`kubectl get %s -n %s -o jsonpath='{range .spec.template.spec.containers[*]}{.name}: {.resources.requests}{"\n"}{end}'`, workload, h.Namespace))
	return workload, lacking, evidence
}
