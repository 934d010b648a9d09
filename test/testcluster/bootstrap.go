package testcluster

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/util/retry"
)

// bootstrap creates what kube-controller-manager and a kubelet would have.
func (c *Cluster) bootstrap(ctx context.Context) error {
	if err := c.ensureNamespaceDefaults(ctx, metav1.NamespaceDefault); err != nil {
		return err
	}
	if err := c.AggregateClusterRoles(ctx); err != nil {
		return fmt.Errorf("aggregate cluster roles: %w", err)
	}
	if err := c.createFakeNode(ctx); err != nil {
		return fmt.Errorf("create node: %w", err)
	}
	return nil
}

// ensureNamespaceDefaults creates what controllers add to every namespace:
//   - the "default" ServiceAccount (serviceaccount controller); without it
//     the ServiceAccount admission plugin rejects every pod in the namespace;
//   - the "kube-root-ca.crt" ConfigMap (root-ca-cert-publisher), which every
//     pod's projected token volume references, so code that checks a pod's
//     ConfigMap references does not see it as missing.
func (c *Cluster) ensureNamespaceDefaults(ctx context.Context, ns string) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}
	_, err := c.Client.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create default service account in %s: %w", ns, err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt", Namespace: ns,
			Annotations: map[string]string{"kubernetes.io/description": "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."}},
		Data: map[string]string{"ca.crt": string(c.pki.CACert)},
	}
	_, err = c.Client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create kube-root-ca.crt in %s: %w", ns, err)
	}
	return nil
}

// AggregateClusterRoles does what the clusterrole-aggregation controller
// would: fill every ClusterRole that has an aggregationRule (view, edit,
// admin, ...) with the union of the rules of the ClusterRoles its selectors
// match. The apiserver creates them with empty rules, so without this a
// subject bound to "view" cannot even list pods. Call it again after
// creating ClusterRoles labelled rbac.authorization.k8s.io/aggregate-to-*.
func (c *Cluster) AggregateClusterRoles(ctx context.Context) error {
	list, err := c.Client.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	roles := make([]*rbacv1.ClusterRole, len(list.Items))
	for i := range list.Items {
		roles[i] = &list.Items[i]
	}
	sort.Slice(roles, func(i, j int) bool { return roles[i].Name < roles[j].Name })

	// Aggregated roles feed each other (view is aggregate-to-edit, edit is
	// aggregate-to-admin), so iterate in memory to a fixed point; the
	// controller gets there through successive reconciles.
	changed := map[string]bool{}
	for pass := 0; pass < 10; pass++ {
		progress := false
		for _, role := range roles {
			if role.AggregationRule == nil {
				continue
			}
			rules, err := aggregatedRules(role, roles)
			if err != nil {
				return err
			}
			if !apiequality.Semantic.DeepEqual(rules, role.Rules) {
				role.Rules = rules
				changed[role.Name] = true
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	for _, role := range roles {
		if !changed[role.Name] {
			continue
		}
		if _, err := c.Client.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("update clusterrole %s: %w", role.Name, err)
		}
	}
	return nil
}

// aggregatedRules mirrors the controller: per selector, the matching roles
// sorted by name (the role itself excluded), rules de-duplicated in order.
func aggregatedRules(role *rbacv1.ClusterRole, all []*rbacv1.ClusterRole) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	for _, sel := range role.AggregationRule.ClusterRoleSelectors {
		selector, err := metav1.LabelSelectorAsSelector(&sel)
		if err != nil {
			return nil, fmt.Errorf("clusterrole %s: %w", role.Name, err)
		}
		for _, other := range all { // sorted by name
			if other.Name == role.Name || !selector.Matches(labels.Set(other.Labels)) {
				continue
			}
			for _, r := range other.Rules {
				if !containsRule(rules, r) {
					rules = append(rules, r)
				}
			}
		}
	}
	return rules, nil
}

func containsRule(rules []rbacv1.PolicyRule, r rbacv1.PolicyRule) bool {
	for _, x := range rules {
		if apiequality.Semantic.DeepEqual(x, r) {
			return true
		}
	}
	return false
}

// createFakeNode registers a Ready Node whose only address is 127.0.0.1 and
// whose kubelet port is the fake kubelet's, so pods bound to it get logs.
// Unlike pod status, node status is kept on create.
func (c *Cluster) createFakeNode(ctx context.Context) error {
	now := metav1.NewTime(time.Now())
	// Report the control plane's version, as an up-to-date kubelet would.
	kubeletVersion := "v0.0.0"
	if v, err := c.Client.Discovery().ServerVersion(); err == nil {
		kubeletVersion = v.GitVersion
	}
	res := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("8Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: c.NodeName,
			Labels: map[string]string{
				"kubernetes.io/hostname": c.NodeName,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
			},
		},
		Status: corev1.NodeStatus{
			Capacity:    res,
			Allocatable: res,
			Phase:       corev1.NodeRunning,
			Addresses:   []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{
				KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(c.kubelet.port)},
			},
			Conditions: []corev1.NodeCondition{{
				Type:               corev1.NodeReady,
				Status:             corev1.ConditionTrue,
				Reason:             "KubeletReady",
				Message:            "fake kubelet is posting ready status",
				LastHeartbeatTime:  now,
				LastTransitionTime: now,
			}},
			NodeInfo: corev1.NodeSystemInfo{
				OperatingSystem:         "linux",
				Architecture:            "amd64",
				KubeletVersion:          kubeletVersion,
				ContainerRuntimeVersion: "fake://0.0.0",
			},
		},
	}
	if _, err := c.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return err
	}
	return c.untaintNotReady(ctx, c.NodeName)
}

// taintNotReady is the taint the TaintNodesByCondition admission plugin puts
// on every Node at creation. The node-lifecycle controller removes it once
// the node reports Ready; there is no such controller here.
var taintNotReady = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}

// untaintNotReady removes the not-ready NoSchedule taint from a node, as the
// node-lifecycle controller does for a Ready node. Admission only adds it on
// create, so an update sticks.
func (c *Cluster) untaintNotReady(ctx context.Context, name string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := c.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		kept := n.Spec.Taints[:0]
		for _, t := range n.Spec.Taints {
			if t.Key != taintNotReady.Key || t.Effect != taintNotReady.Effect {
				kept = append(kept, t)
			}
		}
		if len(kept) == len(n.Spec.Taints) {
			return nil
		}
		n.Spec.Taints = kept
		_, err = c.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
}
