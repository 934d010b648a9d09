package watch

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

var t0 = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

func TestKeyOf(t *testing.T) {
	ev := &fault.Event{Cluster: "prod", FaultType: "CrashLoop", Resource: &fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop"}}
	if k := KeyOf(ev); k != "prod/shop/Pod/api/CrashLoop" {
		t.Errorf("KeyOf = %q", k)
	}
	node := &fault.Event{FaultType: "NodeUnhealthy", Resource: &fault.Resource{Kind: "Node", Name: "n1"}}
	if k := KeyOf(node); k != "//Node/n1/NodeUnhealthy" {
		t.Errorf("KeyOf(node) = %q", k)
	}
	// A slash in a context name cannot make two different events collide.
	a := &fault.Event{Cluster: "a/b", FaultType: "X", Resource: &fault.Resource{Kind: "Pod", Name: "p", Namespace: "c"}}
	b := &fault.Event{Cluster: "a", FaultType: "X", Resource: &fault.Resource{Kind: "Pod", Name: "p", Namespace: "b/c"}}
	if KeyOf(a) == KeyOf(b) {
		t.Errorf("collision: %q", KeyOf(a))
	}
	if k := KeyOf(a); k != "a%2Fb/c/Pod/p/X" {
		t.Errorf("escaped key %q", k)
	}
	// The nested shape keys the same as the flat one.
	nested := &fault.Event{Cluster: "prod", FaultType: "CrashLoop", Event: &fault.K8sEvent{Namespace: "shop", InvolvedObject: fault.ObjectReference{Kind: "Pod", Name: "api"}}}
	if KeyOf(nested) != KeyOf(ev) {
		t.Errorf("nested %q vs flat %q", KeyOf(nested), KeyOf(ev))
	}
}

func TestDedupWindow(t *testing.T) {
	d := NewDedup(15*time.Minute, 0)
	steps := []struct {
		key   string
		after time.Duration
		seen  bool
	}{
		{"a", 0, false},
		{"a", time.Second, true},
		{"b", time.Second, false}, // another key is independent
		{"a", 14*time.Minute + 59*time.Second, true},
		{"a", 15 * time.Minute, false}, // a whole window after the last new one
		{"a", 16 * time.Minute, true},  // the window restarted at 15m, not sliding from the repeats
		{"a", 29 * time.Minute, true},
		{"a", 30 * time.Minute, false},
		{"b", 30 * time.Minute, false},
	}
	for i, s := range steps {
		if got := d.Seen(s.key, t0.Add(s.after)); got != s.seen {
			t.Errorf("step %d: Seen(%q, +%v) = %v, want %v", i, s.key, s.after, got, s.seen)
		}
	}
	// Expired keys are let go.
	d.Seen("c", t0.Add(time.Hour))
	if n := d.Len(); n != 1 {
		t.Errorf("Len after expiry = %d, want 1", n)
	}
}

func TestDedupDisabled(t *testing.T) {
	d := NewDedup(0, 10)
	for i := 0; i < 3; i++ {
		if d.Seen("a", t0) {
			t.Fatal("window 0 must not dedup")
		}
	}
	if d.Len() != 0 {
		t.Fatal("window 0 must hold nothing")
	}
}

func TestDedupBounded(t *testing.T) {
	d := NewDedup(time.Hour, 3)
	for i := 0; i < 5; i++ {
		if d.Seen(fmt.Sprint("k", i), t0.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("k%d seen", i)
		}
	}
	if d.Len() != 3 || d.Evicted() != 2 {
		t.Fatalf("Len %d, Evicted %d; want 3, 2", d.Len(), d.Evicted())
	}
	// The oldest were evicted (new again); the newest are still held.
	now := t0.Add(10 * time.Second)
	for i, want := range []bool{false, true, true} { // k0 evicted; k3, k4 held
		k := []string{"k0", "k3", "k4"}[i]
		if got := d.Seen(k, now); got != want {
			t.Errorf("Seen(%s) = %v, want %v", k, got, want)
		}
	}
	if d.Len() > 3 {
		t.Errorf("Len %d exceeds the bound", d.Len())
	}
}

func TestDedupForget(t *testing.T) {
	d := NewDedup(time.Hour, 2)
	d.Seen("a", t0)
	d.Forget("a")
	if d.Seen("a", t0.Add(time.Second)) {
		t.Fatal("a forgotten key must be new")
	}
	if !d.Seen("a", t0.Add(2*time.Second)) {
		t.Fatal("and then held again")
	}
	// The stale entry left by Forget neither evicts nor expires the live one.
	d.Seen("b", t0.Add(3*time.Second))
	if !d.Seen("a", t0.Add(4*time.Second)) {
		t.Fatal("live key lost to a stale entry")
	}
	if d.Len() > 2 {
		t.Fatalf("Len %d", d.Len())
	}
}

func TestDedupClockBack(t *testing.T) {
	d := NewDedup(time.Minute, 0)
	d.Seen("a", t0)
	if !d.Seen("a", t0.Add(-time.Hour)) {
		t.Error("a clock stepping back must not make a repeat new")
	}
}

// After a burst the dedup gives memory back once the keys expire.
func TestDedupShrinks(t *testing.T) {
	d := NewDedup(time.Minute, 0)
	for i := 0; i < 20000; i++ {
		d.Seen(fmt.Sprint("k", i), t0)
	}
	d.Seen("x", t0.Add(2*time.Minute))
	if d.Len() != 1 || cap(d.order.buf) > 64 {
		t.Fatalf("Len %d, ring cap %d", d.Len(), cap(d.order.buf))
	}
}

func TestDedupConcurrent(t *testing.T) {
	d := NewDedup(time.Hour, 1000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	news := map[string]int{}
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				k := fmt.Sprint("k", i%100)
				if !d.Seen(k, t0.Add(time.Duration(i)*time.Millisecond)) {
					mu.Lock()
					news[k]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for k, n := range news {
		if n != 1 {
			t.Errorf("%s new %d times", k, n)
		}
	}
	if len(news) != 100 {
		t.Errorf("%d keys new, want 100", len(news))
	}
}
