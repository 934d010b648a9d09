package safefix

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// TestUnknown: what an agent's destructive commands name that the bundle
// does not hold, to be read before the policy judges them.
func TestUnknown(t *testing.T) {
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop"},
		Pods: []*corev1.Pod{pod("api", "", nil, false)}}
	r := &report.Report{Actions: []report.Action{
		{Commands: []string{"kubectl delete pod api -n shop"}},                           // held
		{Commands: []string{"kubectl delete pod web", "kubectl delete pod web -n shop"}}, // once, the target's namespace
		{Commands: []string{"kubectl drain worker-2 --ignore-daemonsets"}},
		{Commands: []string{"kubectl rollout restart deployment/checkout -n prod"}},
		{Commands: []string{"kubectl delete pvc data-0 && kubectl delete sts db"}},
		{Commands: []string{"kubectl get pod other -n shop", "kubectl delete configmap x"}}, // a read; a kind the policy does not judge
		{Commands: []string{"kubectl delete pod -l app=web"}},                               // by selector: judged against the bundle
	}}
	want := []Ref{
		{Kind: KindPod, Namespace: "shop", Name: "web"},
		{Kind: KindNode, Name: "worker-2"},
		{Kind: KindDeployment, Namespace: "prod", Name: "checkout"},
		{Kind: KindPVC, Namespace: "shop", Name: "data-0"},
		{Kind: KindStatefulSet, Namespace: "shop", Name: "db"},
	}
	if got := Unknown(r, b); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
