package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestIngressControllerError: an ingress controller's warning event on
// the Ingress is read like a log line. Material: the AWS Load Balancer
// Controller's FailedDeployModel when its role lacks
// elasticloadbalancing:AddTags
// (https://github.com/kubernetes-sigs/aws-load-balancer-controller/pull/3372);
// ingress-gce's Sync event when its service account lacks a compute
// permission (googleapi "Error 403: Required 'compute.backendServices.create'
// permission", https://github.com/kubernetes/ingress-gce/issues/1131).
// Negatives: a message no class reads, an event of yesterday.
func TestIngressControllerError(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	tests := []struct {
		name, component, reason, msg string
		ago                          time.Duration
		category                     string // "" when nothing is said
		names                        []string
	}{
		{"aws lbc AddTags denied", "ingress", "FailedDeployModel",
			`Failed deploy model due to AccessDenied: User: arn:aws:sts::123456789012:assumed-role/eks-lbc/1690000000 is not authorized to perform: elasticloadbalancing:AddTags on resource: arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/k8s-default-web-0f1e2d3c4b/* because no identity-based policy allows the elasticloadbalancing:AddTags action status code: 403, request id: 6f1b2c3d`,
			time.Minute, "Ingress/ControllerError/AuthFailed", []string{"elasticloadbalancing:AddTags", "FailedDeployModel", "ingress controller (ingress)"}},
		{"ingress-gce compute permission", "loadbalancer-controller", "Sync",
			`Error syncing to GCP: error running backend syncing routine: googleapi: Error 403: Required 'compute.backendServices.create' permission for 'projects/p/global/backendServices/k8s-be-30080', forbidden`,
			2 * time.Minute, "Ingress/ControllerError/AuthFailed", []string{"compute.backendServices.create"}},
		{"a message no class reads", "ingress", "FailedBuildModel", `Failed build model due to ingress: default/web: unknown group order 7`, time.Minute, "", nil},
		{"yesterday's refusal", "ingress", "FailedDeployModel", `Failed deploy model due to AccessDenied: status code: 403`, 26 * time.Hour, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "i1"}}
			e := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web.1", Namespace: "default"}, Type: corev1.EventTypeWarning, Reason: tt.reason, Message: tt.msg, Count: 17,
				Source:         corev1.EventSource{Component: tt.component},
				InvolvedObject: corev1.ObjectReference{Kind: "Ingress", Name: "web", Namespace: "default", UID: "i1"},
				FirstTimestamp: metav1.NewTime(now.Add(-tt.ago - time.Hour)), LastTimestamp: metav1.NewTime(now.Add(-tt.ago))}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Ingress", Name: "web", Namespace: "default", UID: "i1"}, Ingresses: []*networkingv1.Ingress{ing}, Events: []corev1.Event{e}}
			fs := ruletest.Run(IngressControllerError, b, now)
			if tt.category == "" {
				if len(fs) != 0 {
					t.Fatalf("got %+v, want nothing", fs)
				}
				return
			}
			if len(fs) != 1 || string(fs[0].Category) != tt.category {
				t.Fatalf("got %+v, want %s", fs, tt.category)
			}
			text := fs[0].Title + "\n" + fs[0].Culprit
			for _, n := range tt.names {
				if !strings.Contains(text, n) {
					t.Errorf("finding does not name %q:\n%s", n, text)
				}
			}
		})
	}
}
