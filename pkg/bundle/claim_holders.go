package bundle

import (
	"context"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// maxClaimHolders bounds the sibling pods read when a pod's log says a lock
// on its data is held: the holder is among the few pods of its template.
const maxClaimHolders = 10

// claimHolders: a pod target whose log says another process holds the lock
// on its data files (applog.LockHeld), and that mounts a claim, has its
// siblings read in one bounded list by its own labels (revision hashes
// aside: a rollout's old pod has another one); those mounting the same claim
// join the Candidates with their claim volumes, so pod/volume-lock can name
// the holder. A workload target's bundle has its pods already.
func (c *collector) claimHolders(ctx context.Context) {
	t := c.b.Target
	if t.Kind != "Pod" || !c.opts.wants(NeedClaims) {
		return
	}
	p := c.podNamed(t.Name)
	if p == nil || len(p.Labels) == 0 || len(claimsOf(p)) == 0 || !c.logSaysLockHeld(p.Name) {
		return
	}
	sel := map[string]string{}
	for k, v := range p.Labels {
		if k != appsv1.DefaultDeploymentUniqueLabelKey && k != appsv1.ControllerRevisionHashLabelKey && k != "statefulset.kubernetes.io/pod-name" {
			sel[k] = v
		}
	}
	if len(sel) == 0 {
		return
	}
	c.count()
	list, err := c.cs.CoreV1().Pods(t.Namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(sel).String(), Limit: maxClaimHolders})
	if err != nil {
		c.problem("pods labelled like "+p.Name, err)
		return
	}
	mine := claimsOf(p)
	for i := range list.Items {
		o := &list.Items[i]
		if o.Name == p.Name {
			continue
		}
		var shared []corev1.Volume
		for _, v := range o.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && mine[v.PersistentVolumeClaim.ClaimName] {
				shared = append(shared, corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: v.PersistentVolumeClaim.DeepCopy()}})
			}
		}
		if len(shared) == 0 {
			continue
		}
		h := candidate(o)
		h.Spec.Volumes = shared
		h.Spec.NodeName = o.Spec.NodeName
		h.Status.Conditions = o.Status.Conditions
		c.mu.Lock()
		c.b.Candidates = append(c.b.Candidates, h)
		c.mu.Unlock()
	}
}

// claimsOf is the claims a pod's volumes name.
func claimsOf(p *corev1.Pod) map[string]bool {
	out := map[string]bool{}
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			out[v.PersistentVolumeClaim.ClaimName] = true
		}
	}
	return out
}

// logSaysLockHeld: a line of the pod's logs says a lock is held.
func (c *collector) logSaysLockHeld(pod string) bool {
	for _, l := range c.b.Logs {
		if l.Pod != pod || l.Error != "" {
			continue
		}
		for _, line := range strings.Split(l.Text, "\n") {
			if applog.LockHeld(line) {
				return true
			}
		}
	}
	return false
}
