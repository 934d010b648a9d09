package workload

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestFailedCreateWebhookCall: a webhook the API server could not call (in
// either wording, "failed calling webhook" or the older "failed calling
// admission webhook") is FailedCreate/WebhookUnavailable naming the hook
// and its Service, a timeout said as such; a denial is not a call failure.
func TestFailedCreateWebhookCall(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	yes, one := true, int32(1)
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-5d8f", Namespace: "shop", UID: "rs1",
		OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: "web", UID: "d1", Controller: &yes}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: &one, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/web:1"}}}}}}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "d1"}, Spec: appsv1.DeploymentSpec{Replicas: &one}}
	for _, tt := range []struct {
		name, msg      string
		want           rule.Category
		culprit, title string
	}{
		// https://github.com/knative/serving/issues/13045 (the wording of
		// k8s.io/apiserver's webhook client since "failed to call webhook").
		{"timeout, current wording",
			`Error creating: Internal error occurred: failed calling webhook "webhook.serving.knative.dev": failed to call webhook: Post "https://webhook.knative-serving.svc:443/defaulting?timeout=10s": context deadline exceeded`,
			rule.FailedCreate.Sub("WebhookUnavailable"), "knative-serving/webhook", "does not answer within its timeout"},
		// https://github.com/chaos-mesh/chaos-mesh/issues/2898 (older wording).
		{"timeout, older wording",
			`Error creating: Internal error occurred: failed calling webhook "mstresschaos.kb.io": Post "https://chaos-mesh-controller-manager.chaos-testing.svc:443/mutate-chaos-mesh-org-v1alpha1-stresschaos?timeout=5s": context deadline exceeded`,
			rule.FailedCreate.Sub("WebhookUnavailable"), "chaos-testing/chaos-mesh-controller-manager", "does not answer within its timeout"},
		// The "admission webhook" wording of 1.13/1.14 API servers, as in
		// https://github.com/istio/istio/issues/13840, with a client timeout.
		{"timeout, 'admission webhook' wording",
			`Error creating: Internal error occurred: failed calling admission webhook "sidecar-injector.istio.io": Post https://istio-sidecar-injector.istio-system.svc:443/inject?timeout=30s: net/http: request canceled (Client.Timeout exceeded while awaiting headers)`,
			rule.FailedCreate.Sub("WebhookUnavailable"), "istio-system/istio-sidecar-injector", "does not answer within its timeout"},
		{"connection refused is unreachable, not a timeout",
			`Error creating: Internal error occurred: failed calling webhook "mpod.kb.io": failed to call webhook: Post "https://ctl-webhook.ops.svc:443/mutate-v1-pod?timeout=10s": dial tcp 10.96.12.4:443: connect: connection refused`,
			rule.FailedCreate.Sub("WebhookUnavailable"), "ops/ctl-webhook", "is unreachable"},
		{"a denial is not a call failure",
			`Error creating: admission webhook "validate.kyverno.svc-fail" denied the request: policy Pod/shop/web for resource violation: require-labels`,
			rule.FailedCreate.Sub("Webhook"), "validate.kyverno.svc-fail", "denies them"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web-5d8f.1", Namespace: "shop"}, Type: corev1.EventTypeWarning, Reason: "FailedCreate", Count: 7, Message: tt.msg,
				InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Name: "web-5d8f", Namespace: "shop", UID: "rs1"}, LastTimestamp: metav1.NewTime(now.Add(-time.Minute))}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "shop", UID: "d1"},
				Deployments: []*appsv1.Deployment{d}, ReplicaSets: []*appsv1.ReplicaSet{rs}, Events: []corev1.Event{e}}
			f := ruletest.Root(ruletest.Run(FailedCreate, b, now))
			if f == nil || f.Category != tt.want || !strings.Contains(f.Culprit, tt.culprit) || !strings.Contains(f.Title, tt.title) {
				t.Fatalf("finding %+v", f)
			}
		})
	}
}
