package storage

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// PVCResize is the rule storage/pvc-resize.
var PVCResize = &rule.Rule{
	Meta: rule.Meta{
		ID:    "storage/pvc-resize",
		Kinds: []string{"PersistentVolumeClaim"},
		Layer: rule.PlacementLayer,
		Needs: []rule.Need{rule.Claims, rule.Events},
		Doc:   "A claim grown in its spec whose volume does not follow: the resizer's VolumeResizeFailed, read for the storage backend's own error.",
	},
	Check: checkPVCResize,
}

// ResizeFailures are the events of a claim whose expansion fails: the
// resizer's (controller side) and the kubelet's (filesystem).
var ResizeFailures = []string{"VolumeResizeFailed", "FileSystemResizeFailed"}

// The backend's own error inside the resizer's wrapping: a cloud API's
// error code ("api error VolumeModificationRateExceeded: You've …"), else
// the innermost gRPC description.
var (
	apiErrorRe = regexp.MustCompile(`api error (?P<code>[A-Za-z][A-Za-z0-9.]+): (?P<msg>.+)$`)
	grpcDescRe = regexp.MustCompile(`(?:^|: )rpc error: code = (?P<code>\w+) desc = (?P<msg>.+)$`)
)

// ResizeError is the decisive part of a resize failure message: the
// backend's error code and text, or the whole message.
func ResizeError(msg string) (code, text string) {
	msg = strings.TrimSpace(msg)
	if m, ok := submatch.Find(apiErrorRe, msg); ok {
		return m.Get("code"), m.Get("msg")
	}
	// gRPC errors nest ("rpc error: … desc = Could not resize …: rpc
	// error: … desc = …"): the last description is the backend's.
	rest := msg
	for {
		m, ok := submatch.Find(grpcDescRe, rest)
		if !ok {
			break
		}
		code, text = m.Get("code"), m.Get("msg")
		if !strings.Contains(text, "rpc error:") {
			return code, text
		}
		rest = text[strings.Index(text, "rpc error:"):]
	}
	if text != "" {
		return code, text
	}
	return "", msg
}

// Growing says whether the claim asks for more storage than it has.
func Growing(pvc *corev1.PersistentVolumeClaim) (want, have string, ok bool) {
	req, okReq := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	got, okGot := pvc.Status.Capacity[corev1.ResourceStorage]
	if !okReq || !okGot || req.Cmp(got) <= 0 {
		return "", "", false
	}
	return req.String(), got.String(), true
}

// ResizeFailing is what says a claim's expansion fails: the resize
// failure events about it, and an allocatedResourceStatuses entry the
// resizer marked Failed or Infeasible ("storage ControllerResizeInfeasible").
func ResizeFailing(c *rule.Pass, pvc *corev1.PersistentVolumeClaim) (events []corev1.Event, failedStatus string) {
	events = kube.EventsWith(c, pvc.UID, ResizeFailures...)
	for res, st := range pvc.Status.AllocatedResourceStatuses {
		if strings.HasSuffix(string(st), "Failed") || strings.HasSuffix(string(st), "Infeasible") {
			failedStatus = fmt.Sprintf("%s %s", res, st)
		}
	}
	return events, failedStatus
}

func checkPVCResize(c *rule.Pass) []rule.Finding {
	pvc := kube.TargetOf(c, "PersistentVolumeClaim", c.B.PVCs)
	if pvc == nil || pvc.Status.Phase != corev1.ClaimBound {
		return nil
	}
	want, have, growing := Growing(pvc)
	if !growing {
		return nil
	}
	failures, failedStatus := ResizeFailing(c, pvc)
	if len(failures) == 0 && failedStatus == "" {
		if f, ok := silentResizer(c, pvc, want, have); ok {
			return []rule.Finding{f}
		}
		return nil // a resize in progress: the health model notes it
	}
	f := rule.Finding{Category: rule.PVC.Sub("Resize"), Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: pvc.Name, Confidence: rule.Strong}
	f.Evidence = []string{c.Evidence(fmt.Sprintf("Claim %s requests %s but has %s (volume %s)", pvc.Name, want, have, pvc.Spec.VolumeName),
		fmt.Sprintf("persistentvolumeclaim/%s .spec.resources.requests.storage vs .status.capacity", pvc.Name),
		fmt.Sprintf(`kubectl get pvc %s -n %s -o jsonpath='{.spec.resources.requests.storage} {.status.capacity.storage} {.status.allocatedResourceStatuses}'`, pvc.Name, pvc.Namespace))}
	backend := failedStatus
	code := ""
	if len(failures) > 0 {
		last := failures[len(failures)-1]
		f.Evidence = append(f.Evidence, kube.EventEvidence(c, last))
		var text string
		code, text = ResizeError(last.Message)
		backend = text
		if code != "" {
			backend = code + ": " + text
		}
	}
	by := "the volume's resizer"
	if p := pvc.Annotations["volume.kubernetes.io/storage-provisioner"]; p != "" {
		by = "external resizer " + p
	}
	f.Hypothesis = fmt.Sprintf("The expansion of claim %s from %s to %s fails", pvc.Name, have, want)
	f.Title = fmt.Sprintf("claim %s cannot grow from %s to %s: %s refuses it (%s)", pvc.Name, have, want, by, backend)
	f.Summary = fmt.Sprintf("Claim %s asks for %s, but its volume %s still has %s: %s fails every attempt with %s. The claim keeps its old size and the resizer retries.", pvc.Name, want, pvc.Spec.VolumeName, have, by, backend)
	f.Mechanism = "Growing a claim's spec.resources.requests.storage makes the resizer expand the volume in the storage backend (ControllerExpandVolume), then the node grow the filesystem; while the backend refuses, status.capacity stays at the old size, the Resizing condition stays True and VolumeResizeFailed repeats."
	f.Culprit = fmt.Sprintf("persistentvolumeclaim/%s resize %s → %s: %s", pvc.Name, have, want, backend)
	f.Actions = []report.Action{{Kind: report.Check, Description: "Read the resizer's error: the storage backend names what it refuses (a rate limit, quota, a volume type that cannot grow).",
		Commands: []string{fmt.Sprintf("kubectl describe pvc %s -n %s", pvc.Name, pvc.Namespace), fmt.Sprintf("kubectl get pv %s -o yaml", pvc.Spec.VolumeName)}}}
	if strings.Contains(code, "RateExceeded") || strings.Contains(backend, "Wait at least") {
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Wait out the backend's modification limit (the message says how long); the resizer retries on its own and succeeds once the limit has passed."}}, f.Actions...)
		f.Contributing = append(f.Contributing, "The backend limits how often a volume may be modified: a second resize within that window is refused, not lost.")
	}
	return []rule.Finding{f}
}
