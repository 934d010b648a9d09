package network

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// HeadlessDiscovery is the rule network/headless-discovery.
var HeadlessDiscovery = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/headless-discovery",
		Kinds: []string{"Pod", "StatefulSet"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Pods, rule.Logs, rule.NamespaceServices},
		Doc:   "A pod that is not Ready and cannot resolve the headless Service that selects it: without publishNotReadyAddresses the Service's DNS name has no answer until its pods are Ready, and they wait on discovery to become Ready.",
	},
	Check: checkHeadlessDiscovery,
}

// checkHeadlessDiscovery: peers find each other through a headless
// Service (a StatefulSet's cluster bootstrap), which publishes only Ready
// pods unless publishNotReadyAddresses is set: a pod whose readiness needs
// its peers waits forever for a name that answers only once it is Ready.
func checkHeadlessDiscovery(c *rule.Pass) []rule.Finding {
	for _, p := range c.B.Pods {
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil || kube.IsPodReady(p) {
			continue
		}
		for _, l := range c.B.Logs {
			if l.Pod != p.Name || l.Previous || l.Text == "" {
				continue
			}
			for _, host := range applog.Extract(l.Text).Unresolved {
				svc, _ := bundle.ServiceForHost(c.B.Services, p.Namespace, governingHost(host))
				if svc == nil || svc.Spec.ClusterIP != corev1.ClusterIPNone || svc.Spec.PublishNotReadyAddresses || !Selects(svc, p) {
					continue
				}
				return []rule.Finding{headlessFinding(c, p, l.Container, host, svc)}
			}
		}
	}
	return nil
}

// governingHost is the Service name in a StatefulSet pod's own DNS name
// (<pod>.<service>.<namespace>.svc.<domain>: "nats-1.nats.nats.svc.cluster.local"
// is Service nats of namespace nats), else the host itself.
func governingHost(host string) string {
	l := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(l) >= 4 && l[3] == "svc" {
		return l[1] + "." + l[2]
	}
	return host
}

func headlessFinding(c *rule.Pass, p *corev1.Pod, ctr, host string, svc *corev1.Service) rule.Finding {
	return rule.Finding{
		Category: rule.Service.Sub("Headless", "NotReadyAddresses"), Verdict: report.Validated, Confidence: rule.Likely,
		Hypothesis: fmt.Sprintf("Pod %s waits to discover its peers through headless Service %s, which publishes no address until they are Ready", p.Name, svc.Name),
		Evidence: []string{
			c.Evidence(fmt.Sprintf("Container %s of pod %s (not Ready) cannot resolve %s", ctr, p.Name, host), kube.PodRef(p)+" logs "+ctr, kube.LogsCmd(p, ctr, false)),
			c.Evidence(fmt.Sprintf("Service %s is headless (clusterIP None), selects pod %s ({%s}) and has publishNotReadyAddresses false", svc.Name, p.Name, kube.SelectorString(svc.Spec.Selector)),
				svcRef(svc)+" .spec", fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.clusterIP} {.spec.publishNotReadyAddresses} {.spec.selector}'", svc.Name, svcNS(svc))),
		},
		Current: true, Strength: rule.Explained, Subject: p.Name,
		Title:     fmt.Sprintf("pod %s cannot resolve headless service %s, which publishes only Ready pods (publishNotReadyAddresses is false) while the pod waits on it to become Ready", p.Name, svc.Name),
		Summary:   fmt.Sprintf("Pod %s is not Ready and its log cannot resolve %s. Service %s is headless and selects this very pod, but without publishNotReadyAddresses its DNS name answers only with Ready pods: discovery waits on readiness, readiness on discovery.", p.Name, host, svc.Name),
		Mechanism: "A headless Service's DNS records list the addresses of its ready endpoints only; with none ready the name does not resolve. Clustered software that finds its peers through that name (Elasticsearch, ZooKeeper, etcd, Cassandra) cannot form a cluster before its pods are Ready, and their readiness needs the cluster.",
		Culprit:   fmt.Sprintf("%s .spec.publishNotReadyAddresses false (headless Service %s selects pod %s, which needs it to resolve before it is Ready)", svcRef(svc), svc.Name, p.Name),
		Actions: []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Let Service %s publish not-ready addresses, as discovery Services of clustered software do.", svc.Name),
			Commands:    []string{fmt.Sprintf(`kubectl patch service %s %s --type=merge -p '{"spec":{"publishNotReadyAddresses":true}}'`, svc.Name, svcNS(svc))},
			Risk:        "clients of this Service also see pods that are not Ready: keep a separate Service for client traffic"}},
	}
}
