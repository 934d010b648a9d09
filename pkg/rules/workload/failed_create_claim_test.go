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

// TestFailedCreateClaim: a StatefulSet whose volumeClaimTemplate's claim is
// refused says the claims cannot be created, not its pods (the controller
// creates the pod only once its claims exist); a refused pod stays "pods".
func TestFailedCreateClaim(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	three := int32(3)
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "shop", UID: "s1"}, Spec: appsv1.StatefulSetSpec{Replicas: &three},
		Status: appsv1.StatefulSetStatus{Replicas: 2}}
	for _, tt := range []struct{ msg, title string }{
		// https://github.com/redhat-developer/rh-che/pull/425 (the quota's
		// wording) in the StatefulSet controller's claim prefix.
		{`create Claim data-kafka-2 for Pod kafka-2 in StatefulSet kafka failed error: persistentvolumeclaims "data-kafka-2" is forbidden: exceeded quota: storage-quota, requested: requests.storage=50Gi, used: requests.storage=100Gi, limited: requests.storage=120Gi`,
			"PersistentVolumeClaims cannot be created: ResourceQuota storage-quota"},
		{`create Pod kafka-2 in StatefulSet kafka failed error: pods "kafka-2" is forbidden: exceeded quota: pods-cap, requested: pods=1, used: pods=2, limited: pods=2`,
			"pods cannot be created: ResourceQuota pods-cap"},
	} {
		e := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "kafka.1", Namespace: "shop"}, Type: corev1.EventTypeWarning, Reason: "FailedCreate", Count: 4, Message: tt.msg,
			InvolvedObject: corev1.ObjectReference{Kind: "StatefulSet", Name: "kafka", Namespace: "shop", UID: "s1"}, LastTimestamp: metav1.NewTime(now.Add(-time.Minute))}
		b := &bundle.Bundle{Target: fault.Resource{Kind: "StatefulSet", Name: "kafka", Namespace: "shop", UID: "s1"}, StatefulSets: []*appsv1.StatefulSet{sts}, Events: []corev1.Event{e}}
		f := ruletest.Root(ruletest.Run(FailedCreate, b, now))
		if f == nil || f.Category != rule.FailedCreate.Sub("Quota") || !strings.HasPrefix(f.Title, tt.title) {
			t.Errorf("finding %+v, want title %q", f, tt.title)
		}
	}
}
