package batch

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

// JobSidecar is the rule batch/job-sidecar.
var JobSidecar = &rule.Rule{
	Meta: rule.Meta{
		ID:       "batch/job-sidecar",
		Kinds:    []string{"Job"},
		Layer:    rule.WorkloadLayer,
		Requires: workload.PodLevel,
		Needs:    workload.Needs,
		Doc:      "An active Job whose pod's work containers all exited 0 while another regular container (a sidecar) keeps running, so the pod and the Job never finish.",
	},
	Check: checkJobSidecar,
}

// sidecarGrace: the kubelet stops a finished pod's containers within
// seconds; a container still running a minute after the others exited 0
// is not going to stop by itself.
const sidecarGrace = time.Minute

// heldPod is a Job's pod held open by its still-running containers.
type heldPod struct {
	pod      *corev1.Pod
	done     []string // containers that exited 0
	running  []string // containers still running
	finished time.Time
}

// heldOpen reads pod p: every regular container that terminated exited 0,
// at least one still runs, and the last exit is older than sidecarGrace.
// Native sidecars (init containers with restartPolicy Always) are stopped
// by the kubelet and never hold a pod: only spec.containers count.
func heldOpen(c *rule.Pass, p *corev1.Pod) (heldPod, bool) {
	h := heldPod{pod: p}
	if p.Status.Phase != corev1.PodRunning {
		return h, false
	}
	for _, cs := range p.Status.ContainerStatuses {
		switch st := cs.State; {
		case st.Terminated != nil && st.Terminated.ExitCode == 0:
			h.done = append(h.done, cs.Name)
			if t := st.Terminated.FinishedAt.Time; t.After(h.finished) {
				h.finished = t
			}
		case st.Terminated != nil:
			return h, false
		case st.Running != nil:
			h.running = append(h.running, cs.Name)
		}
	}
	return h, len(h.done) > 0 && len(h.running) > 0 && !h.finished.IsZero() && c.Now.Sub(h.finished) >= sidecarGrace
}

func checkJobSidecar(c *rule.Pass) []rule.Finding {
	j := kube.TargetOf(c, "Job", c.B.Jobs)
	if j == nil || j.Status.Active == 0 {
		return nil
	}
	if _, done := kube.JobFinished(j); done {
		return nil
	}
	var held []heldPod
	for _, p := range kube.PodsOf(c, j.UID) {
		if h, ok := heldOpen(c, p); ok {
			held = append(held, h)
		}
	}
	if len(held) == 0 {
		return nil
	}
	h := held[0]
	p := h.pod
	sidecars, work := strings.Join(h.running, ", "), strings.Join(h.done, ", ")
	var evidence []string
	for _, cs := range p.Status.ContainerStatuses {
		if st := cs.State; st.Terminated != nil {
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Container %s of pod %s terminated: exit 0 (%s) at %s", cs.Name, p.Name, kube.OrDash(st.Terminated.Reason), kube.Clock(st.Terminated.FinishedAt.Time)),
				fmt.Sprintf("%s .status.containerStatuses[%s].state.terminated", kube.PodRef(p), cs.Name), kube.StatusCmd(p, cs.Name, "state.terminated")))
		} else if st.Running != nil {
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Container %s of pod %s is still running (since %s)", cs.Name, p.Name, kube.Clock(st.Running.StartedAt.Time)),
				fmt.Sprintf("%s .status.containerStatuses[%s].state.running", kube.PodRef(p), cs.Name), kube.StatusCmd(p, cs.Name, "state.running")))
		}
	}
	f := rule.Finding{
		Category: rule.Job.Sub("Sidecar"), Verdict: report.Validated, Confidence: rule.Strong, Current: true, Strength: rule.Explained, Subject: j.Name,
		Evidence:   evidence,
		Hypothesis: fmt.Sprintf("Container %s keeps pod %s, and so Job %s, running after the work finished", sidecars, p.Name, j.Name),
		Title: fmt.Sprintf("job %s never completes: container %s of pod %s exited 0 %s ago, but %s keeps running, so the pod never terminates",
			j.Name, work, p.Name, kube.HumanDuration(c.Now.Sub(h.finished)), sidecars),
		Summary:   fmt.Sprintf("The work of Job %s is done (container %s exited 0), but its pod %s still runs container %s; a pod ends only when all its regular containers have exited, so the Job stays active.", j.Name, work, p.Name, sidecars),
		Mechanism: "A Job completes when its pods terminate, and a pod terminates only when every container in spec.containers has exited. A sidecar placed there (a service-mesh proxy such as istio-proxy or linkerd-proxy, a log shipper, a database proxy) serves until it is told to stop, so the pod stays Running with its work finished and the Job stays active — until activeDeadlineSeconds, if any, fails it.",
		Culprit:   fmt.Sprintf("container %s of %s (still running after %s exited 0)", sidecars, kube.PodRef(p), work),
		Actions: []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Make %s stop when the work ends: run it as a native sidecar (an init container with restartPolicy: Always, Kubernetes 1.29+), which the kubelet stops once the regular containers have exited; or have the work container tell it to quit as its last step.", sidecars),
				Commands: []string{fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{range .status.containerStatuses[*]}{.name}{\"\\t\"}{.state}{\"\\n\"}{end}'", p.Name, kube.NSFlag(p))},
				Risk:     "the running pod is only released by stopping the sidecar or deleting the pod; the Job counts a deleted pod as failed"},
		},
	}
	if mesh := istioSidecar(h.running); mesh != "" {
		f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm,
			Description: "For Istio: inject the proxy as a native sidecar (annotation sidecar.istio.io/nativeSidecar: \"true\", Istio 1.20+), or end the work container's command with a POST to the proxy's /quitquitquit, or do not inject Jobs that need no mesh (sidecar.istio.io/inject: \"false\").",
			Commands:    []string{fmt.Sprintf("kubectl exec %s %s -c %s -- pilot-agent request POST quitquitquit", p.Name, kube.NSFlag(p), mesh)},
			Risk:        "without the proxy, a Job in a STRICT mTLS mesh cannot reach mesh services"})
	}
	if len(held) > 1 {
		f.Contributing = append(f.Contributing, fmt.Sprintf("%d of the Job's pods are held open the same way.", len(held)))
	}
	if d := j.Spec.ActiveDeadlineSeconds; d == nil {
		f.Contributing = append(f.Contributing, "The Job sets no activeDeadlineSeconds: nothing ends it.")
	}
	return []rule.Finding{f}
}

// istioSidecar is the container name of Istio's proxy among names.
func istioSidecar(names []string) string {
	for _, n := range names {
		if n == "istio-proxy" {
			return n
		}
	}
	return ""
}
