package autoscaling

import (
	"fmt"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// withMetricsAPI refines "the metrics API did not answer" with what the
// collector read of the APIService that serves it: absent, it is not
// installed; present, its Available condition, the Service it sends to and
// that Service's pods, whose state and log say why it does not answer
// (docs/DESIGN.md, "Correlations").
// detail is the HPA's own wording of the failed read.
func withMetricsAPI(c *rule.Pass, f rule.Finding, h *autoscalingv2.HorizontalPodAutoscaler, detail string) rule.Finding {
	k := kube.ControllerOf(c, bundle.RoleAPIService, hpaRef(h))
	if k == nil {
		return f
	}
	a := k.Actor
	if a.Missing {
		f.Category = f.Category.Sub("NotInstalled")
		f.Confidence = rule.Strong
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("APIService %s does not exist", a.Name), "apiservice/"+a.Name, "kubectl get apiservice "+a.Name))
		f.Title = fmt.Sprintf("HPA %s cannot read its metrics: APIService %s does not exist, so nothing serves that API (metrics-server or the adapter is not installed)", h.Name, a.Name)
		f.Culprit = fmt.Sprintf("APIService %s is not registered (no metrics server installed): %s", a.Name, detail)
		return f
	}
	if a.Status != "" {
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("APIService %s Available=%s", a.Name, a.Status), "apiservice/"+a.Name+" .status.conditions[Available]",
			fmt.Sprintf(`kubectl get apiservice %s -o jsonpath='{.status.conditions[?(@.type=="Available")]}'`, a.Name)))
	}
	if k.Pod == nil {
		if a.Service != "" && !c.B.IsMissing("Service", strings.Split(a.Service, "/")[0], strings.Split(a.Service, "/")[1]) {
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Service %s behind APIService %s selects no pod", a.Service, a.Name), "service/"+a.Service, "kubectl get endpointslices -A -l kubernetes.io/service-name="+strings.Split(a.Service, "/")[1]))
			f.Culprit = fmt.Sprintf("APIService %s → Service %s, which selects no pod", a.Name, a.Service)
		} else if a.Service != "" {
			f.Culprit = fmt.Sprintf("APIService %s → Service %s, which does not exist", a.Name, a.Service)
		}
		return f
	}
	f.Evidence = append(f.Evidence, k.Evidence...)
	f.Strength = rule.Traced
	said := ""
	if k.Line != "" {
		said = fmt.Sprintf("; its log says %q", k.Line)
	}
	server := strings.Split(a.Service, "/")[len(strings.Split(a.Service, "/"))-1]
	if kube.IsPodReady(k.Pod) && k.Line == "" {
		f.Summary += fmt.Sprintf(" Its server %s (behind Service %s) is ready and logs no error.", k.Ref, a.Service)
		return f
	}
	if !kube.IsPodReady(k.Pod) {
		f.Category = f.Category.Sub("ServerNotReady")
		f.Confidence = rule.Strong
	}
	f.Hypothesis = fmt.Sprintf("The server of APIService %s, %s, is %s and cannot serve HPA %s's metrics", a.Name, k.Ref, k.State, h.Name)
	f.Title = fmt.Sprintf("HPA %s cannot read its metrics: APIService %s sends to Service %s, whose %s is %s%s", h.Name, a.Name, a.Service, k.Ref, k.State, said)
	f.Summary = fmt.Sprintf("HPA %s reads its metrics from APIService %s, which the API server proxies to Service %s; its pod %s is %s%s, so the API does not answer and the HPA never scales.", h.Name, a.Name, a.Service, k.Ref, k.State, said)
	f.Culprit = fmt.Sprintf("%s (%s, behind APIService %s) is %s%s", server, k.Ref, a.Name, k.State, said)
	if strings.Contains(k.Line, "x509:") && strings.Contains(k.Line, "IP SANs") {
		f.Contributing = append(f.Contributing, "The kubelets' serving certificates are self-signed for their host names only (no IP SANs), and metrics-server dials the nodes by InternalIP and verifies them: sign the kubelet serving certificates for their addresses (kubelet serverTLSBootstrap: true, then approve the CSRs), or give metrics-server --kubelet-insecure-tls where verification is not required.")
	}
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: fmt.Sprintf("Fix what %s's log says; once it is ready, APIService %s becomes Available and the HPA reads its metrics.", k.Ref, a.Name),
		Commands:    []string{fmt.Sprintf("kubectl logs %s -n %s --tail=50", k.Pod.Name, k.Pod.Namespace), "kubectl get apiservice " + a.Name}}}, f.Actions...)
	return f
}
