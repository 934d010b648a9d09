package bundle

import (
	"context"
	"strings"

	"github.com/agnivade/levenshtein"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxNearMissList bounds the list read to find the workload a missing
// reference probably meant.
const maxNearMissList = 500

// scaleTargetNearMisses reads, once an HPA's scale target is not found,
// the namespace's Deployments and StatefulSets and keeps only those whose
// name is close to the missing one (a chart's "mastodon" for
// "mastodon-web") or equal under the other kind (a chart that renders a
// StatefulSet and an HPA for a Deployment): the rule names the likely
// intended target. Two list requests, only when the target is missing.
func (c *collector) scaleTargetNearMisses(ctx context.Context, ns, kind, name string) {
	if kind != "Deployment" && kind != "StatefulSet" {
		return
	}
	apps := c.cs.AppsV1()
	opts := metav1.ListOptions{Limit: maxNearMissList}
	keep := func(k, n string) bool { return NearName(name, n) || (k != kind && n == name) }
	c.count()
	if l, err := apps.Deployments(ns).List(ctx, opts); err != nil {
		c.nearMissProblem(ns, "deployments", name, err)
	} else {
		for i := range l.Items {
			if keep("Deployment", l.Items[i].Name) {
				c.addTyped(&l.Items[i], gvkDeployment)
			}
		}
	}
	c.count()
	if l, err := apps.StatefulSets(ns).List(ctx, opts); err != nil {
		c.nearMissProblem(ns, "statefulsets", name, err)
	} else {
		for i := range l.Items {
			if keep("StatefulSet", l.Items[i].Name) {
				c.addTyped(&l.Items[i], gvkStatefulSet)
			}
		}
	}
}

func (c *collector) nearMissProblem(ns, what, name string, err error) {
	if !apierrors.IsNotFound(err) {
		c.problem(what+" in namespace "+ns+" (near misses of "+name+")", err)
	}
}

// NearName says whether have is probably what want meant: a different
// name within a small edit distance, or one that extends the other at a
// word boundary ("mastodon" and "mastodon-web").
func NearName(want, have string) bool {
	if want == have || want == "" || have == "" {
		return false
	}
	short, long := want, have
	if len(short) > len(long) {
		short, long = long, short
	}
	if strings.HasPrefix(long, short+"-") || strings.HasSuffix(long, "-"+short) {
		return true
	}
	d := levenshtein.ComputeDistance(want, have)
	return d <= 2 && d*4 <= len(short)
}
