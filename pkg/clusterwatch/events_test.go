package clusterwatch

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

func TestEventFault(t *testing.T) {
	podRef := corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Name: "web", Namespace: "shop", UID: "uid-1"}
	warning := func(reason, message string, mutate ...func(*corev1.Event)) *corev1.Event {
		e := &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: "web.1", Namespace: "shop"},
			InvolvedObject: podRef,
			Type:           corev1.EventTypeWarning,
			Reason:         reason,
			Message:        message,
			Source:         corev1.EventSource{Component: "kubelet"},
		}
		for _, m := range mutate {
			m(e)
		}
		return e
	}
	tests := []struct {
		name         string
		event        *corev1.Event
		wantOK       bool
		wantRes      fault.Resource
		wantType     string
		wantSeverity string
		wantContext  string
	}{
		{
			name:   "crash loop back-off",
			event:  warning("BackOff", "Back-off restarting failed container app in pod web_shop(uid-1)"),
			wantOK: true, wantRes: fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "web", Namespace: "shop", UID: "uid-1"},
			wantType: fault.TypeCrashLoop, wantSeverity: fault.SeverityCritical,
			wantContext: "BackOff: Back-off restarting failed container app in pod web_shop(uid-1)",
		},
		{
			name:   "image pull back-off",
			event:  warning("BackOff", `Back-off pulling image "nginx:nope"`),
			wantOK: true, wantRes: fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "web", Namespace: "shop", UID: "uid-1"},
			wantType: fault.TypeImagePull, wantSeverity: fault.SeverityWarning,
		},
		{
			name:   "failed scheduling",
			event:  warning("FailedScheduling", "0/3 nodes are available: 3 Insufficient cpu."),
			wantOK: true, wantRes: fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "web", Namespace: "shop", UID: "uid-1"},
			wantType: fault.TypeUnschedulable, wantSeverity: fault.SeverityWarning,
		},
		{
			name:   "a reason without a fault name keeps its own",
			event:  warning("FailedMount", `MountVolume.SetUp failed for volume "cfg" : configmap "cfg" not found`),
			wantOK: true, wantRes: fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "web", Namespace: "shop", UID: "uid-1"},
			wantType: "FailedMount", wantSeverity: fault.SeverityWarning,
		},
		{
			name:   "eviction is critical",
			event:  warning("Evicted", "The node was low on resource: memory."),
			wantOK: true, wantRes: fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "web", Namespace: "shop", UID: "uid-1"},
			wantType: "Evicted", wantSeverity: fault.SeverityCritical,
		},
		{
			name: "node event recorded in default is cluster-scoped",
			event: warning("NodeNotReady", "Node node-1 status is now: NodeNotReady", func(e *corev1.Event) {
				e.Namespace = metav1.NamespaceDefault
				e.InvolvedObject = corev1.ObjectReference{Kind: "Node", Name: "node-1", UID: "node-1"}
			}),
			wantOK: true, wantRes: fault.Resource{Kind: "Node", Name: "node-1", UID: "node-1"},
			wantType: fault.TypeNodeUnhealthy, wantSeverity: fault.SeverityCritical,
		},
		{
			name: "reference without namespace takes the event's",
			event: warning("FailedMount", "timed out", func(e *corev1.Event) {
				e.InvolvedObject.Namespace = ""
			}),
			wantOK: true, wantRes: fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "web", Namespace: "shop", UID: "uid-1"},
			wantType: "FailedMount", wantSeverity: fault.SeverityWarning,
		},
		{
			name:  "normal event",
			event: warning("Scheduled", "Successfully assigned shop/web to node-1", func(e *corev1.Event) { e.Type = corev1.EventTypeNormal }),
		},
		{
			name: "apiserver's ClusterIP repair noise",
			event: warning("ClusterIPNotAllocated", "Cluster IP [IPv4]:10.0.0.1 is not allocated; repairing", func(e *corev1.Event) {
				e.InvolvedObject = corev1.ObjectReference{Kind: "Service", Name: "kubernetes", Namespace: "default"}
			}),
		},
		{
			name: "ipallocator-repair-controller",
			event: warning("ClusterIPOutOfRange", "Cluster IP 10.9.9.9 is not within the service CIDR", func(e *corev1.Event) {
				e.Source.Component = "ipallocator-repair-controller"
			}),
		},
		{
			name:  "about no object",
			event: warning("FailedMount", "x", func(e *corev1.Event) { e.InvolvedObject = corev1.ObjectReference{} }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, faultType, severity, context, ok := eventFault(tt.event)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			if res != tt.wantRes {
				t.Errorf("resource = %+v, want %+v", res, tt.wantRes)
			}
			if faultType != tt.wantType || severity != tt.wantSeverity {
				t.Errorf("fault = %q, %q, want %q, %q", faultType, severity, tt.wantType, tt.wantSeverity)
			}
			if tt.wantContext != "" && context != tt.wantContext {
				t.Errorf("context = %q, want %q", context, tt.wantContext)
			}
		})
	}
}

func TestRecurred(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	tests := []struct {
		name     string
		old, new corev1.Event
		want     bool
	}{
		{name: "count bumped", old: corev1.Event{Count: 1, LastTimestamp: t0}, new: corev1.Event{Count: 2, LastTimestamp: t1}, want: true},
		{name: "later, same count", old: corev1.Event{Count: 1, LastTimestamp: t0}, new: corev1.Event{Count: 1, LastTimestamp: t1}, want: true},
		{name: "metadata only", old: corev1.Event{Count: 3, LastTimestamp: t1}, new: corev1.Event{Count: 3, LastTimestamp: t1}},
		{
			name: "series count bumped",
			old:  corev1.Event{Series: &corev1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(t0.Time)}},
			new:  corev1.Event{Series: &corev1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(t1.Time)}},
			want: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := recurred(&tt.old, &tt.new); got != tt.want {
				t.Errorf("recurred = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewEventShape(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	res := fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "web", Namespace: "shop", UID: "uid-1"}
	ev, err := newEvent("prod", res, fault.TypeCrashLoop, fault.SeverityCritical, "container app in CrashLoopBackOff", at)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ev.FaultID, "cluster-") {
		t.Errorf("faultId = %q, want a cluster- prefix", ev.FaultID)
	}
	// Raw is what goes to context/event.json: it must parse back to the
	// same fault, as one from kubernetes-mcp-server would.
	back, err := fault.Parse(ev.Raw)
	if err != nil {
		t.Fatalf("parse Raw: %v\n%s", err, ev.Raw)
	}
	if back.Shape != fault.ShapeFlat || back.FaultID != ev.FaultID || back.Cluster != "prod" ||
		*back.Resource != res || back.FaultType != fault.TypeCrashLoop || back.Severity != fault.SeverityCritical ||
		!back.Timestamp.Equal(at.Truncate(time.Second)) {
		raw, _ := json.Marshal(back)
		t.Errorf("Raw parses to %s, want the event built", raw)
	}
}
