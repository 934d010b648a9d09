package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// VolumeLock is the rule pod/volume-lock.
var VolumeLock = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/volume-lock",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop},
		Needs:    append([]rule.Need{rule.Claims}, rule.PodEvidence...),
		Doc:      "A container that exits because a lock on its data is held, traced to the other pods of the bundle that mount the same claim (a RollingUpdate's old pod still running on a ReadWriteMany or same-node volume).",
	},
	Check: checkVolumeLock,
}

// checkVolumeLock: the lock lives on a volume, so the holder is another
// pod mounting the same claim. A Deployment's RollingUpdate starts the new
// pod before the old one stops, and a second replica of one pod template
// mounts the first one's claim; with a volume both can mount, the first
// keeps the lock and the other crash-loops. For a pod target the collector
// reads the pod's siblings (its labels) when its log states a held lock
// (bundle's claim holders).
func checkVolumeLock(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, crash := range c.ResultOf(CrashLoop) {
		podName, ctrName, _ := strings.Cut(crash.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		spec := kube.SpecOf(p, ctrName)
		dec, _ := logs.LastDecisive(c, p, ctrName)
		if spec == nil || dec == nil || dec.Pattern.Class != logs.LockHeld && !applog.LockHeld(dec.Line) {
			continue
		}
		if f := heldLock(c, p, spec, crash, dec); f != nil {
			out = append(out, *f)
		}
	}
	return out
}

// heldLock is the pod holding the lock on one of the container's writable
// claims; with no holder seen and one such claim, the lock is on that
// claim's data all the same (a lock left by a writer that died, or held
// from outside the pods read).
func heldLock(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, crash rule.Finding, dec *logs.Decisive) *rule.Finding {
	var only *corev1.VolumeMount
	onlyClaim, claims := "", 0
	for i := range spec.VolumeMounts {
		m := &spec.VolumeMounts[i]
		v := volumeNamed(p, m.Name)
		if v == nil || m.ReadOnly {
			continue
		}
		claim := claimOf(p, v)
		if claim == "" {
			continue
		}
		if holder := otherClaimant(c, p, claim); holder != nil {
			f := lockFinding(c, p, spec, crash, dec, *m, claim, holder)
			return &f
		}
		only, onlyClaim, claims = m, claim, claims+1
	}
	if claims != 1 {
		return nil
	}
	f := staleLockFinding(c, p, spec, crash, dec, *only, onlyClaim)
	return &f
}

func staleLockFinding(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, crash rule.Finding, dec *logs.Decisive, m corev1.VolumeMount, claim string) rule.Finding {
	f := crash
	f.Strength, f.Current, f.Confidence = rule.Traced, true, rule.Likely
	f.Category = crashRoot(crash.Category).Sub("VolumeLock")
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s keeps its data on PVC %s at %s, the only claim it writes; no other pod read mounts it", spec.Name, claim, m.MountPath),
		fmt.Sprintf("%s .spec.containers[%s].volumeMounts", kube.PodRef(p), spec.Name), containerSpecCmd(p, spec.Name, "volumeMounts")))
	f.Title = fmt.Sprintf("container %s cannot lock its data on PVC %s, and no other pod seen mounts the claim: the lock is left on the volume", spec.Name, claim)
	f.Hypothesis = fmt.Sprintf("The data on PVC %s carries a lock no running pod holds (a writer that died mid-write, or one outside the pods read)", claim)
	f.Culprit = fmt.Sprintf("the data on PVC %s (mounted at %s by %s): its lock is held (log: %q), and no other pod seen mounts the claim", claim, m.MountPath, p.Name, dec.Line)
	f.Mechanism = fmt.Sprintf("The application locks its data before it writes; a lock left by a process that died (a stale lock file, a SQLite journal) or held by a writer outside the cluster's pods keeps it from starting. %s", crash.Mechanism)
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: fmt.Sprintf("Check that nothing else mounts PVC %s (pods of other namespaces' workloads cannot, but a node-level process or a second cluster can); then clear the stale lock in its data, or reset that data (the application's own recovery: for SQLite, its journal or the database file) — back the volume up first.", claim),
		Commands:    []string{fmt.Sprintf("kubectl get pods -n %s -o json | grep -n '\"claimName\": \"%s\"'", p.Namespace, claim), fmt.Sprintf("kubectl describe pvc %s -n %s", claim, p.Namespace)},
		Risk:        "resetting the data loses what it holds"}}, crash.Actions...)
	f.Summary = fmt.Sprintf("%s. %s", upperFirst(f.Title), crash.Summary)
	return f
}

// otherClaimant is another running pod of the bundle that mounts claim.
func otherClaimant(c *rule.Pass, p *corev1.Pod, claim string) *corev1.Pod {
	seen := map[string]bool{p.Name: true}
	for _, list := range [][]*corev1.Pod{c.B.Pods, c.B.NamespacePods, c.B.Candidates} {
		for _, o := range list {
			if seen[o.Name] || o.Namespace != p.Namespace || o.Status.Phase == corev1.PodSucceeded || o.Status.Phase == corev1.PodFailed {
				continue
			}
			seen[o.Name] = true
			for i := range o.Spec.Volumes {
				if claimOf(o, &o.Spec.Volumes[i]) == claim {
					return o
				}
			}
		}
	}
	return nil
}

func lockFinding(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, crash rule.Finding, dec *logs.Decisive, m corev1.VolumeMount, claim string, holder *corev1.Pod) rule.Finding {
	f := crash
	f.Strength, f.Current, f.Confidence = rule.Traced, true, rule.Strong
	f.Category = crashRoot(crash.Category).Sub("VolumeLock")
	state := string(holder.Status.Phase)
	if kube.IsPodReady(holder) {
		state += ", Ready"
	}
	f.Evidence = append(f.Evidence,
		c.Evidence(fmt.Sprintf("Container %s mounts PVC %s at %s", spec.Name, claim, m.MountPath),
			fmt.Sprintf("%s .spec.containers[%s].volumeMounts", kube.PodRef(p), spec.Name), containerSpecCmd(p, spec.Name, "volumeMounts")),
		c.Evidence(fmt.Sprintf("Pod %s (%s) mounts the same claim %s", holder.Name, state, claim),
			kube.PodRef(holder)+" .spec.volumes", fmt.Sprintf("kubectl get pod %s -n %s -o wide", holder.Name, holder.Namespace)))
	f.Title = fmt.Sprintf("container %s cannot lock its data on PVC %s: pod %s, which mounts the same claim, holds the lock", spec.Name, claim, holder.Name)
	f.Hypothesis = fmt.Sprintf("Pod %s still runs with PVC %s mounted and holds the lock on %s; the new pod %s cannot take it", holder.Name, claim, m.MountPath, p.Name)
	f.Culprit = fmt.Sprintf("pod %s (%s), which mounts PVC %s as %s does: it holds the lock (log: %q)", holder.Name, state, claim, p.Name, dec.Line)
	f.Mechanism = fmt.Sprintf("The application locks its data directory so that two instances never write it at once. A second pod on the same claim (a RollingUpdate's new pod started before the old one stops, or a second replica of the same template) finds the lock taken and exits. %s", crash.Mechanism)
	kind, owner := kube.OwnerName(c, p)
	fix := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Let only one pod use PVC %s at a time: one replica per claim (a StatefulSet's volumeClaimTemplates give each its own), and for a Deployment's rollouts strategy type Recreate (the old pod stops before the new one starts); deleting pod %s releases the lock now.", claim, holder.Name),
		Commands:    []string{fmt.Sprintf("kubectl get pods -n %s -o wide", p.Namespace)},
		Risk:        "Recreate has a short outage on every rollout"}
	if kind == "deployment" {
		fix.Commands = append([]string{fmt.Sprintf(`kubectl patch deployment/%s -n %s -p '{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}'`, owner, p.Namespace)}, fix.Commands...)
	}
	f.Actions = append([]report.Action{fix}, crash.Actions...)
	f.Summary = fmt.Sprintf("%s. %s", upperFirst(f.Title), crash.Summary)
	return f
}
