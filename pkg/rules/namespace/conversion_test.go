package namespace

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestTerminatingConversionWebhook: content the namespace controller cannot
// delete because a CRD's conversion webhook fails names the kind and the
// webhook's Service, and proposes the read-only commands that show the
// CRD's conversion config and that Service; another content failure does
// not.
func TestTerminatingConversionWebhook(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	mk := func(msg string) *bundle.Bundle {
		del := metav1.NewTime(now.Add(-2 * time.Hour))
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "crd-webhook-4962", UID: "ns1", DeletionTimestamp: &del},
			Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating, Conditions: []corev1.NamespaceCondition{{Type: corev1.NamespaceDeletionContentFailure,
				Status: corev1.ConditionTrue, Reason: "ContentDeletionFailed", Message: msg, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Namespace", Name: n.Name, UID: "ns1"}, Namespace: n}
	}
	for _, tt := range []struct {
		name, msg string
		want      []string // in the title and commands; nil: not the conversion case
	}{
		// https://github.com/kubernetes/kubernetes/issues/118357 (the e2e
		// conversion webhook's namespace; the message's tail after the URL
		// is cut in the thread, completed with the API server's wording).
		{"e2e conversion webhook gone",
			`Failed to delete all resource types, 1 remaining: conversion webhook for stable.example.com/v1, Kind=e2e-test-crd-webhook-1786-crd failed: Post "https://e2e-test-crd-conversion-webhook.crd-webhook-4962.svc:9443/crdconvert?timeout=30s": service "e2e-test-crd-conversion-webhook" not found`,
			[]string{"stable.example.com", "e2e-test-crd-webhook-1786-crd", "crd-webhook-4962/e2e-test-crd-conversion-webhook"}},
		{"not a conversion failure",
			`Failed to delete all resource types, 1 remaining: Internal error occurred: error resolving resource`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := ruletest.Root(ruletest.Run(Terminating, mk(tt.msg), now))
			if f == nil {
				t.Fatal("no finding")
			}
			var cmds []string
			for _, a := range f.Actions {
				cmds = append(cmds, a.Commands...)
			}
			all := f.Title + "\n" + strings.Join(cmds, "\n")
			if tt.want == nil {
				if strings.Contains(f.Title, "conversion webhook") {
					t.Errorf("title %q", f.Title)
				}
				return
			}
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("%q not named in %q", w, all)
				}
			}
			if !strings.Contains(all, "kubectl get crd") || !strings.Contains(all, "kubectl get service e2e-test-crd-conversion-webhook -n crd-webhook-4962") {
				t.Errorf("commands %q", cmds)
			}
		})
	}
}
