package network

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/pod"
)

// DependencyVersion is the rule network/dependency-version.
var DependencyVersion = &rule.Rule{
	Meta: rule.Meta{
		ID:       "network/dependency-version",
		Kinds:    []string{"Pod", "Deployment"},
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{pod.CrashLoop, pod.RunningErrors},
		Needs:    []rule.Need{rule.Pods, rule.Logs, rule.NamespaceServices, rule.Dependencies},
		Doc:      "A container whose log refuses the version of a server it talks to (a compatibility check naming versions, a 400 naming a key the server does not know), followed to that server: the Service its env, command line or log names, and the image its ready pods run, with the version the log names found in that image's tag.",
	},
	Check: checkDependencyVersion,
}

// peerSide is the server a mismatch is about, as the cluster shows it.
type peerSide struct {
	Svc    *corev1.Service
	From   string // where the host was read
	Pod    *corev1.Pod
	Image  string
	Named  string // a version the log names that the server's image tag carries; "" when none
	Client string // the container's own image
}

// peerOf is the server side of dec's mismatch: the Service, its first
// ready pod read, and that pod's image; nil when the Service's pods were
// not read or none is ready.
func peerOf(c *rule.Pass, p *corev1.Pod, ctr string, dec *logs.Decisive) *peerSide {
	svc, from := bundle.PeerService(c.B.Services, p, ctr, dec.Raw)
	if svc == nil {
		return nil
	}
	for _, dp := range c.B.DependencyPods {
		if dp.Namespace != svc.Namespace || !Selects(svc, dp) || !kube.IsPodReady(dp) || len(dp.Spec.Containers) == 0 {
			continue
		}
		side := &peerSide{Svc: svc, From: from, Pod: dp, Image: bundle.ServingContainer(dp, svc).Image}
		if spec := kube.SpecOf(p, ctr); spec != nil {
			side.Client = spec.Image
		}
		tag := kube.ImageTag(side.Image)
		for _, v := range applog.Versions(dec.Raw) {
			if tag != "" && strings.Contains(tag, v) && !strings.Contains(kube.ImageTag(side.Client), v) {
				side.Named = v
				break
			}
		}
		return side
	}
	return nil
}

// checkDependencyVersion refines a crash (or a running container's
// repeated error) whose decisive line is a version or API mismatch with
// the server it is about: which Service, which pod, which image.
func checkDependencyVersion(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	seen := map[string]bool{}
	for _, crash := range append(c.ResultOf(pod.CrashLoop), c.ResultOf(pod.RunningErrors)...) {
		if seen[crash.Subject] {
			continue
		}
		podName, ctr, _ := strings.Cut(crash.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		dec, _ := logs.LastDecisive(c, p, ctr)
		if dec == nil || dec.Pattern.Class != logs.VersionMismatch && dec.Pattern.Class != logs.APIMismatch {
			continue
		}
		side := peerOf(c, p, ctr, dec)
		if side == nil {
			continue
		}
		seen[crash.Subject] = true
		out = append(out, versionFinding(c, p, ctr, crash, dec, side))
	}
	return out
}

func versionFinding(c *rule.Pass, p *corev1.Pod, ctr string, crash rule.Finding, dec *logs.Decisive, side *peerSide) rule.Finding {
	f := crash
	f.Strength, f.Confidence = rule.Traced, rule.Strong
	if side.Named == "" {
		f.Confidence = rule.Likely
	}
	f.Category = f.Category.Sub("PeerVersion")
	if !strings.Contains(string(crash.Category), "/"+dec.Pattern.Class.String()) {
		f.Category = crash.Category.Sub(dec.Pattern.Class.String(), "PeerVersion")
	}
	server := fmt.Sprintf("Service %s (from %s), whose pod %s runs %s", side.Svc.Name, side.From, side.Pod.Name, side.Image)
	named := ""
	if side.Named != "" {
		named = fmt.Sprintf("; the version the log names, %s, is that image's", side.Named)
	}
	lead := crashLead(crash)
	f.Title = fmt.Sprintf("%s: it refuses the version of the server it talks to, %s%s; this container runs %s", lead, server, named, side.Client)
	f.Hypothesis = fmt.Sprintf("Container %s (%s) and Service %s's server (%s) are of versions that do not work together", ctr, side.Client, side.Svc.Name, side.Image)
	f.Culprit = fmt.Sprintf("%s (pod %s, image %s) against %s container %s image %s: %q", svcRef(side.Svc), side.Pod.Name, side.Image, kube.PodRef(p), ctr, side.Client, dec.Line)
	f.Contributing = append(slices.Clone(crash.Contributing),
		fmt.Sprintf("The application's log says: %q.", dec.Line))
	f.Evidence = append(slices.Clone(crash.Evidence),
		c.Evidence(fmt.Sprintf("Service %s's ready pod %s runs image %s", side.Svc.Name, side.Pod.Name, side.Image),
			fmt.Sprintf("pods selected by %s", svcRef(side.Svc)),
			fmt.Sprintf("kubectl get pods -n %s -l %s -o custom-columns=NAME:.metadata.name,IMAGE:.spec.containers[*].image", side.Svc.Namespace, labels.SelectorFromSet(side.Svc.Spec.Selector).String())))
	f.Mechanism = fmt.Sprintf("The client checks the server's version (or sends requests in the format of the server version it was written for) and gives up when they do not match; the cause is the pair of versions, not the network. %s", crash.Mechanism)
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: fmt.Sprintf("Run a pair of versions that support each other: move Service %s's server (%s) to a version this release supports, or this container (%s) to a release that supports the server's.", side.Svc.Name, side.Image, side.Client),
		Commands:    []string{fmt.Sprintf("kubectl get pod %s -n %s -o jsonpath='{.spec.containers[*].image}'", side.Pod.Name, side.Pod.Namespace)}}}, crash.Actions...)
	f.Summary = fmt.Sprintf("%s. %s", upper(f.Title), crash.Summary)
	return f
}
