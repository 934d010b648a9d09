package network

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// ServiceLoadBalancer is the rule network/service-load-balancer.
var ServiceLoadBalancer = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/service-load-balancer",
		Kinds: []string{"Service"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Services, rule.Events},
		Doc:   "A LoadBalancer Service without an external address: the cloud controller's SyncLoadBalancerFailed events say why, or no controller has acted on it at all.",
	},
	Check: checkServiceLoadBalancer,
}

// The service controller's event reasons (k8s.io/cloud-provider
// controllers/service).
const (
	reasonEnsuringLB = "EnsuringLoadBalancer"
	reasonSyncLBFail = "SyncLoadBalancerFailed"
	reasonEnsuredLB  = "EnsuredLoadBalancer"
)

// LBGrace is how long a cloud's load-balancer controller may take to give
// a new LoadBalancer Service its address.
const LBGrace = 5 * time.Minute

// LoadBalancer is what a LoadBalancer Service's status and the service
// controller's events say about its promise, an external address.
type LoadBalancer struct {
	Address string        // the first ingress IP or hostname; "" while pending
	Since   time.Time     // since when it has waited: creation, or the first controller event if older
	Failed  *corev1.Event // the latest warning of the last hour (SyncLoadBalancerFailed, AllocationFailed, …)
	Acted   bool          // a controller left any event (ensuring, allocated, failed)
	Class   string        // spec.loadBalancerClass, when set
}

// LoadBalancerOf reads svc, a type LoadBalancer Service; nil for another type.
func LoadBalancerOf(c *rule.Pass, svc *corev1.Service) *LoadBalancer {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return nil
	}
	lb := &LoadBalancer{Since: svc.CreationTimestamp.Time}
	if svc.Spec.LoadBalancerClass != nil {
		lb.Class = *svc.Spec.LoadBalancerClass
	}
	lb.Address = lbAddress(svc)
	// Any controller serving LoadBalancers speaks through events on the
	// Service: the cloud's service controller (Ensuring…, SyncLoadBalancer-
	// Failed), or an add-on with words of its own (MetalLB's
	// AllocationFailed, IPAllocated). A warning there is its refusal.
	for _, e := range c.B.EventsFor(string(svc.UID)) {
		lb.Acted = true
		if first := bundle.FirstSeen(&e); !first.IsZero() && first.Before(lb.Since) {
			// The harness, a restore or a re-created object: the
			// controller's own record of how long it has been trying.
			lb.Since = first
		}
		if e.Type == corev1.EventTypeWarning && c.Now.Sub(bundle.EventTime(&e)) < kube.RecentWarning {
			ev := e
			if lb.Failed == nil || bundle.EventTime(&ev).After(bundle.EventTime(lb.Failed)) {
				lb.Failed = &ev
			}
		}
	}
	return lb
}

// lbAddress is a Service's first load-balancer ingress IP or hostname; ""
// while it has none.
func lbAddress(svc *corev1.Service) string {
	if ing := svc.Status.LoadBalancer.Ingress; len(ing) > 0 {
		return kube.ValueOr(ing[0].IP, ing[0].Hostname)
	}
	return ""
}

// Waiting is how long the Service has had no address.
func (lb *LoadBalancer) Waiting(now time.Time) time.Duration { return now.Sub(lb.Since) }

// Reason is the cloud's own words, without the controller's wrapping.
func (lb *LoadBalancer) Reason() string {
	if lb.Failed == nil {
		return ""
	}
	m := lb.Failed.Message
	for _, p := range []string{"Error syncing load balancer: ", "failed to ensure load balancer: ", "failed to ensure load balancer for service "} {
		m = strings.TrimPrefix(m, p)
	}
	return m
}

// lbHint is what a cloud's refusal usually needs, by its wording.
type lbHint struct {
	re   *regexp.Regexp
	hint string
}

var lbHints = []lbHint{
	// The AWS provider picks subnets by tag (kubernetes.io/role/elb,
	// kubernetes.io/role/internal-elb, kubernetes.io/cluster/<name>):
	// https://repost.aws/knowledge-center/eks-vpc-subnet-discovery
	{regexp.MustCompile(`(?i)suitable subnets|no subnets`), "the cloud finds no subnet it may place the load balancer in: tag the cluster's subnets for load balancers (AWS: kubernetes.io/role/elb=1 on public subnets, kubernetes.io/role/internal-elb=1 on private ones, and kubernetes.io/cluster/<cluster>=shared|owned)"},
	{regexp.MustCompile(`(?i)quota|LimitExceeded|limit exceeded|TooMany`), "a cloud quota is exhausted (load balancers, public IPs, forwarding rules): raise it or free some"},
	{regexp.MustCompile(`(?i)AccessDenied|UnauthorizedOperation|not authorized|forbidden|permission`), "the cloud controller's credentials lack a permission the load balancer needs: grant it to the controller's role"},
	{regexp.MustCompile(`(?i)certificate|ssl-cert|CertificateNotFound`), "a certificate the Service's annotations name does not exist or is not usable"},
	{regexp.MustCompile(`(?i)annotation|invalid value`), "an annotation of the Service has a value the cloud rejects"},
	// MetalLB's allocator (AllocationFailed): "no available IPs (in pool
	// x)", https://github.com/metallb/metallb/pull/2891; a shared address
	// without the same sharing key, as in
	// https://github.com/allenporter/k8s-gitops/pull/1658.
	{regexp.MustCompile(`(?i)sharing key|address also in use`), "the Service asks for an address another Service holds: give both the same sharing key (MetalLB: metallb.universe.tf/allow-shared-ip) with ports that do not clash, or request another address"},
	{regexp.MustCompile(`(?i)no available IPs|not allowed in config|no matching pool`), "the load-balancer add-on's address pool has no address for it: grow the pool (MetalLB: an IPAddressPool's addresses), free an address, or correct the Service's requested pool or IP"},
}

// Hint says what the cloud's refusal usually needs; "" when unknown.
func (lb *LoadBalancer) Hint() string {
	for _, h := range lbHints {
		if h.re.MatchString(lb.Reason()) {
			return h.hint
		}
	}
	return ""
}

// checkServiceLoadBalancer: a LoadBalancer Service whose external address
// never came. The cloud controller's failing sync says why; with no event
// at all past the grace period, nothing has acted on the Service.
func checkServiceLoadBalancer(c *rule.Pass) []rule.Finding {
	svc := kube.TargetOf(c, "Service", c.B.Services)
	if svc == nil {
		return nil
	}
	lb := LoadBalancerOf(c, svc)
	if lb == nil || lb.Address != "" {
		return nil
	}
	wait := kube.HumanDuration(lb.Waiting(c.Now))
	describe := fmt.Sprintf("kubectl describe service %s %s", svc.Name, svcNS(svc))
	statusEv := c.Evidence(fmt.Sprintf("Service %s is type LoadBalancer and has no external address (status.loadBalancer is empty) after %s", svc.Name, wait),
		svcRef(svc)+" .status.loadBalancer", fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.status.loadBalancer}'", svc.Name, svcNS(svc)))
	if lb.Failed != nil {
		reason := lb.Reason()
		f := rule.Finding{
			Category: rule.Service.Sub("LoadBalancer", "SyncFailed"), Verdict: report.Validated, Confidence: rule.Strong,
			Hypothesis: fmt.Sprintf("The load-balancer controller cannot give Service %s an address: %s", svc.Name, reason),
			Evidence:   []string{statusEv, kube.EventEvidence(c, *lb.Failed)},
			Current:    true, Strength: rule.Explained, Subject: svc.Name,
			Title:     fmt.Sprintf("service %s has no external address: its load balancer cannot be created: %s", svc.Name, reason),
			Summary:   fmt.Sprintf("Service %s of type LoadBalancer has had no external address for %s: its load-balancer controller keeps failing (%s ×%d): %s.", svc.Name, wait, lb.Failed.Reason, bundle.EventCount(lb.Failed), reason),
			Mechanism: "For a LoadBalancer Service a load-balancer controller (the cloud controller manager's service controller, or an add-on such as MetalLB) provisions the load balancer or allocates an address and writes it into status.loadBalancer; while that fails it retries, records a warning on the Service (SyncLoadBalancerFailed, AllocationFailed), and the Service stays reachable only through its cluster IP and node ports.",
			Culprit:   fmt.Sprintf("%s: %s (%s ×%d)", svcRef(svc), lb.Failed.Message, lb.Failed.Reason, bundle.EventCount(lb.Failed)),
			Actions: []report.Action{{Kind: report.Immediate,
				Description: "Fix what the cloud refuses, then let the controller retry (it does on its own).",
				Commands:    []string{describe, fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", svcNS(svc), svc.Name, lb.Failed.Reason)}}},
		}
		if h := lb.Hint(); h != "" {
			f.Actions[0].Description = "Fix what the cloud refuses: " + h + "; the controller retries on its own."
		}
		return []rule.Finding{f}
	}
	if lb.Acted || lb.Waiting(c.Now) <= LBGrace {
		return nil // being provisioned, or failing without a recent word
	}
	who := "no load-balancer controller"
	if lb.Class != "" {
		who = "no controller of loadBalancerClass " + lb.Class
	}
	return []rule.Finding{{
		Category: rule.Service.Sub("LoadBalancer", "NoController"), Verdict: report.Validated, Confidence: rule.Plausible,
		Hypothesis: fmt.Sprintf("%s acts on Service %s", upper(who), svc.Name),
		Evidence:   []string{statusEv, c.Evidence(fmt.Sprintf("No event about Service %s from any controller (no %s, %s, %s, nor an add-on's)", svc.Name, reasonEnsuringLB, reasonSyncLBFail, reasonEnsuredLB), "events of "+svcRef(svc), describe)},
		Current:    true, Strength: rule.Observed, Subject: svc.Name,
		Title:     fmt.Sprintf("service %s has no external address after %s: %s has acted on it", svc.Name, wait, who),
		Summary:   fmt.Sprintf("Service %s of type LoadBalancer has had no external address for %s and no load-balancer controller has left any event about it: the cluster has none (bare metal, kind, minikube without a tunnel), or none for its class.", svc.Name, wait),
		Mechanism: "Kubernetes itself never provisions a load balancer: a cloud controller manager, or an add-on such as MetalLB, watches LoadBalancer Services and fills in status.loadBalancer. Without one the address stays pending forever.",
		Culprit:   fmt.Sprintf("%s .spec.type LoadBalancer (%s in this cluster)", svcRef(svc), who),
		Actions: []report.Action{{Kind: report.Check,
			Description: "Install a load-balancer implementation for this cluster (the cloud's controller manager, MetalLB), or use a NodePort Service or an Ingress instead.",
			Commands:    []string{describe, "kubectl get pods -n kube-system", "kubectl get pods -n metallb-system"}}},
	}}
}
