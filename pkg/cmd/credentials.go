package cmd

import (
	"context"
	"fmt"
	"sort"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// writeVerbs are the verbs that change a cluster.
var writeVerbs = map[string]bool{"*": true, "create": true, "update": true, "patch": true, "delete": true, "deletecollection": true, "escalate": true, "bind": true, "impersonate": true}

// selfReviews are the creates that only ask the API server a question;
// every identity may make them and they change nothing.
var selfReviews = map[string]bool{"selfsubjectaccessreviews": true, "selfsubjectrulesreviews": true, "selfsubjectreviews": true}

// writableRules asks the API server (SelfSubjectRulesReview) what the
// identity behind cfg may do in namespace, and returns the rules that
// allow changes, as "verbs on resources".
func writableRules(ctx context.Context, cfg *rest.Config, namespace string) ([]string, bool, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, false, err
	}
	review, err := cs.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
		Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: namespace},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, false, fmt.Errorf("ask the API server what these credentials may do: %w", err)
	}
	var out []string
	for _, r := range review.Status.ResourceRules {
		var verbs []string
		for _, v := range r.Verbs {
			if writeVerbs[v] {
				verbs = append(verbs, v)
			}
		}
		var resources []string
		for _, res := range r.Resources {
			if !selfReviews[res] {
				resources = append(resources, res)
			}
		}
		if len(verbs) == 0 || (len(r.Resources) > 0 && len(resources) == 0) {
			continue
		}
		res := strings.Join(resources, ",")
		if res == "" {
			res = "*"
		}
		out = append(out, strings.Join(verbs, ",")+" on "+res)
	}
	sort.Strings(out)
	return out, review.Status.Incomplete, nil
}

// checkCollectingCredentials checks the identity that collects the evidence
// when it is not the one checked for the agent (--agent-kubeconfig gives the
// agent its own): --require-readonly-credentials is about every identity
// the run uses, so a read-only agent identity alone does not pass it.
func (o *TriageOptions) checkCollectingCredentials(ctx context.Context, cfg *rest.Config, namespace string, progress func(string, ...any)) error {
	if o.AgentKubeconfig == "" {
		return nil // the same identity, checked already
	}
	const whose = "your kubeconfig's credentials (which collect the evidence)"
	rules, _, err := writableRules(ctx, cfg, namespace)
	if err != nil {
		return err
	}
	if len(rules) == 0 {
		progress("Credentials check: %s cannot write in namespace %s", whose, namespace)
		return nil
	}
	msg := fmt.Sprintf("%s can write in namespace %s (%s)", whose, namespace, strings.Join(rules, "; "))
	if o.RequireReadOnly {
		return fmt.Errorf("%s; refusing to run because of --require-readonly-credentials: --agent-kubeconfig covers only the agent, so use a context bound to a read-only role for the run itself", msg)
	}
	fmt.Fprintf(o.ErrOut, "warning: %s. kubectl triage only reads, but a read-only context is safer.\n", msg)
	return nil
}
