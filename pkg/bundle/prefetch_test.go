package bundle

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

// TestPodEventsStartedEarly: a pod's events list started before the pod
// was read replaces the collector's own list (the same request count), and
// keeps only the events of this pod's UID, not those of an earlier pod of
// the same name.
func TestPodEventsStartedEarly(t *testing.T) {
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "new"}}
	event := func(name string, uid types.UID) *corev1.Event {
		return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, Reason: name,
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "api", Namespace: "shop", UID: uid}}
	}
	for _, early := range []bool{false, true} {
		cs := fake.NewClientset(pod, event("mine", "new"), event("earlier-pod", "old"))
		opts := DefaultOptions()
		if early {
			opts.PodEvents = StartPodEvents(context.Background(), cs, "shop", "api")
		}
		b, err := Collect(context.Background(), cs, asTarget(t, pod, gvkPod), ClusterInfo{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		lists := listed(cs, "events")
		if b.Requests != len(cs.Actions()) || len(lists) != 1 {
			t.Errorf("early=%v: %d requests counted, %d made, %d events lists; want one list, all counted", early, b.Requests, len(cs.Actions()), len(lists))
		}
		if early && lists[0].GetListRestrictions().Fields.String() != "involvedObject.kind=Pod,involvedObject.name=api" {
			t.Errorf("early list selects %q", lists[0].GetListRestrictions().Fields)
		}
		// The fake clientset ignores field selectors: the late list would
		// return both too, so only the early one's UID filter is pinned.
		if early && (len(b.Events) != 1 || b.Events[0].Reason != "mine") {
			t.Errorf("early events %+v, want only this pod's", b.Events)
		}
	}
}
