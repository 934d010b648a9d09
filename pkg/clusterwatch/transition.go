package clusterwatch

import (
	"slices"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// rearmAfter is how long an object must stay healthy before a fault type
// already emitted for it counts as new again. A crash-looping container is
// Running (healthy at a glance) between crashes for at most a few minutes
// (the kubelet's back-off caps at 5m), so each cycle stays one episode.
const rearmAfter = 10 * time.Minute

// stateFault is the fault an object's status shows, as fault.Classify names
// it, or "" when it shows none worth a triage on its own. Classify answers
// for a resource the user picked; on a watch a few of its answers are
// states every healthy object passes through, and would fire on every
// rollout:
//   - PodNotReady: every pod behind a readiness probe starts not ready;
//     lasting probe failures arrive as Unhealthy warnings instead.
//   - PodCrash: a crashed container that restarts and runs is self-healed,
//     and one that keeps crashing turns CrashLoop.
//   - DeploymentFailure from Available=False alone: every new Deployment
//     starts below its minimum availability; only Progressing=False
//     (ProgressDeadlineExceeded) says the rollout is stuck.
func stateFault(obj runtime.Object, gvk schema.GroupVersionKind) (faultType, severity, context string) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return "", "", ""
	}
	u := &unstructured.Unstructured{Object: content}
	// Informer objects carry no TypeMeta, and Classify switches on kind.
	u.SetGroupVersionKind(gvk)
	faultType, severity, context = fault.Classify(u)
	switch faultType {
	case fault.TypeManual, fault.TypePodNotReady, fault.TypePodCrash:
		return "", "", ""
	case fault.TypeDeploymentFailure:
		d, ok := obj.(*appsv1.Deployment)
		if !ok {
			return "", "", ""
		}
		for _, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse {
				return faultType, severity, c.Reason + ": " + c.Message
			}
		}
		return "", "", ""
	}
	return faultType, severity, context
}

// tracker makes state faults edge-triggered: it remembers, per object, the
// fault its status showed last and the fault types already emitted in the
// current episode, and says when an observation is a new fault.
//
// A fault is new when the object moves to a fault type it did not show at
// the previous observation and that was not emitted earlier in the episode.
// An episode ends when the object has been healthy for rearm; until then a
// fault coming back (the next crash of a crash loop) stays quiet, so an
// object yields one event per fault type per episode, whatever its update
// rate. Dedup downstream takes care of repeats across episodes.
//
// Safe for concurrent use. Memory is held only for objects with a fault,
// or healthy for less than rearm since one was emitted.
type tracker struct {
	rearm   time.Duration
	mu      sync.Mutex
	objects map[string]*objectState
}

type objectState struct {
	current      string    // fault type at the last observation, "" = healthy
	emitted      []string  // fault types emitted in this episode (a handful at most)
	healthySince time.Time // when current became ""; zero while faulty
}

func newTracker(rearm time.Duration) *tracker {
	return &tracker{rearm: rearm, objects: map[string]*objectState{}}
}

// observe records that the object under key shows faultType ("" for none)
// at now, and reports whether that is a new fault to emit. With armed false
// the fault is recorded as present but not emitted (an object already
// faulty when the watch started, or when it appeared), so that its next
// update does not fire for it either.
func (t *tracker) observe(key, faultType string, now time.Time, armed bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.objects[key]
	if faultType == "" {
		switch {
		case s == nil:
		case len(s.emitted) == 0 || (s.current == "" && now.Sub(s.healthySince) >= t.rearm):
			delete(t.objects, key)
		case s.current != "":
			s.current, s.healthySince = "", now
		}
		return false
	}
	if s == nil {
		s = &objectState{}
		t.objects[key] = s
	}
	if s.current == "" && len(s.emitted) > 0 && now.Sub(s.healthySince) >= t.rearm {
		s.emitted = nil // healthy long enough: a new episode
	}
	prev := s.current
	s.current, s.healthySince = faultType, time.Time{}
	if !armed || faultType == prev || slices.Contains(s.emitted, faultType) {
		return false
	}
	s.emitted = append(s.emitted, faultType)
	return true
}

// forget drops what is known of a deleted object: a new object of the same
// name starts afresh.
func (t *tracker) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.objects, key)
}

// len is the number of objects remembered.
func (t *tracker) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.objects)
}
