package readonly

import (
	"context"
	"fmt"
	"sort"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
)

// writeVerbs are the verbs that change a cluster.
var writeVerbs = map[string]bool{"*": true, "create": true, "update": true, "patch": true, "delete": true, "deletecollection": true, "escalate": true, "bind": true, "impersonate": true}

// selfReviews are the creates that only ask the API server a question;
// every identity may make them and they change nothing.
var selfReviews = map[string]bool{"selfsubjectaccessreviews": true, "selfsubjectrulesreviews": true, "selfsubjectreviews": true}

// WritableRules asks the API server (SelfSubjectRulesReview) what the
// identity behind cfg may do in namespace, and returns the rules that
// allow changes, as "verbs on resources", sorted, and whether the server's
// answer was incomplete. The read-only transport refuses those writes
// anyway; the rules say how much rests on it.
func WritableRules(ctx context.Context, cfg *rest.Config, namespace string) ([]string, bool, error) {
	// The one group it asks: a whole clientset would make all 55.
	az, err := authorizationv1client.NewForConfig(cfg)
	if err != nil {
		return nil, false, err
	}
	review, err := az.SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
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
