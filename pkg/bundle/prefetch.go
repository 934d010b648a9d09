package bundle

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
)

// PodEvents is a pod target's events list started before the pod itself
// is read (DESIGN.md §1): in a crowded namespace it is the slowest read of
// the triage, and it needs only the pod's name. It selects by kind and
// name, which a pod's UID narrows once known: a pod of the same name that
// existed before has events too, and they are not this pod's.
type PodEvents struct {
	Namespace, Name string

	done chan struct{}
	list *corev1.EventList
	err  error
}

// StartPodEvents starts listing the events about pod name in namespace ns.
func StartPodEvents(ctx context.Context, cs kubernetes.Interface, ns, name string) *PodEvents {
	p := &PodEvents{Namespace: ns, Name: name, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.list, p.err = cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.AndSelectors(
			fields.OneTermEqualSelector("involvedObject.kind", "Pod"),
			fields.OneTermEqualSelector("involvedObject.name", name),
		).String()})
	}()
	return p
}

// Wait ends when the list has come back, or ctx has ended.
func (p *PodEvents) Wait(ctx context.Context) {
	select {
	case <-p.done:
	case <-ctx.Done():
	}
}

// of returns the events about the pod with uid, once listed.
func (p *PodEvents) of(ctx context.Context, uid string) ([]corev1.Event, error) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p.err != nil {
		return nil, p.err
	}
	var out []corev1.Event
	for _, e := range p.list.Items {
		if string(e.InvolvedObject.UID) == uid {
			out = append(out, e)
		}
	}
	return out, nil
}
