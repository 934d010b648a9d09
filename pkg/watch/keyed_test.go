package watch

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type job struct {
	cluster string
	n       int
}

// One at a time per key, keys in parallel, order kept per key.
func TestKeyedSerialPerKey(t *testing.T) {
	var (
		mu      sync.Mutex
		running = map[string]int{}
		order   = map[string][]int{}
		maxPar  atomic.Int32
		par     atomic.Int32
	)
	k := NewKeyed(context.Background(), 100, DropNew, func(j job) string { return j.cluster }, func(j job) {
		n := par.Add(1)
		for {
			m := maxPar.Load()
			if n <= m || maxPar.CompareAndSwap(m, n) {
				break
			}
		}
		mu.Lock()
		running[j.cluster]++
		if running[j.cluster] != 1 {
			t.Errorf("%s: %d handlers at once", j.cluster, running[j.cluster])
		}
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		running[j.cluster]--
		order[j.cluster] = append(order[j.cluster], j.n)
		mu.Unlock()
		par.Add(-1)
	})
	clusters := []string{"a", "b", "c", "d"}
	var wg sync.WaitGroup
	for _, c := range clusters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				if _, dropped := k.Push(job{c, i}); dropped {
					t.Errorf("dropped %s/%d", c, i)
				}
			}
		}()
	}
	wg.Wait()
	k.Close()
	k.Wait()
	for _, c := range clusters {
		if got := order[c]; len(got) != 20 {
			t.Fatalf("%s ran %d jobs", c, len(got))
		} else {
			for i, n := range got {
				if n != i {
					t.Fatalf("%s out of order: %v", c, got)
				}
			}
		}
	}
	if maxPar.Load() < 2 {
		t.Errorf("keys did not run in parallel (max %d)", maxPar.Load())
	}
	if k.Active() != 0 || k.Len() != 0 {
		t.Errorf("Active %d Len %d after Wait", k.Active(), k.Len())
	}
	if _, dropped := k.Push(job{"a", 99}); !dropped || k.Dropped() != 1 {
		t.Error("Push after Close accepted")
	}
}

// A full per-key queue drops by policy; a busy key does not hold up others.
func TestKeyedOverflowAndCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	started := make(chan string, 10)
	var ran sync.Map
	k := NewKeyed(ctx, 2, DropOldest, func(j job) string { return j.cluster }, func(j job) {
		started <- fmt.Sprint(j.cluster, j.n)
		if j.cluster == "slow" {
			<-release
		}
		ran.Store(fmt.Sprint(j.cluster, j.n), true)
	})
	k.Push(job{"slow", 0})
	if s := <-started; s != "slow0" {
		t.Fatalf("started %s", s)
	}
	k.Push(job{"slow", 1})
	k.Push(job{"slow", 2})
	if lost, dropped := k.Push(job{"slow", 3}); !dropped || lost.n != 1 {
		t.Fatalf("overflow lost %v %v, want slow/1", lost, dropped)
	}
	if k.Len() != 2 || k.Dropped() != 1 {
		t.Fatalf("Len %d Dropped %d", k.Len(), k.Dropped())
	}
	// Another cluster runs while "slow" is busy.
	k.Push(job{"fast", 0})
	select {
	case s := <-started:
		if s != "fast0" {
			t.Fatalf("started %s", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a busy key held up another")
	}
	// Cancel: the running handler finishes; queued items never start.
	cancel()
	close(release)
	k.Wait()
	if _, ok := ran.Load("slow0"); !ok {
		t.Error("running handler did not finish")
	}
	for _, s := range []string{"slow2", "slow3"} {
		if _, ok := ran.Load(s); ok {
			t.Errorf("%s ran after cancel", s)
		}
	}
	if k.Discarded() != 2 {
		t.Errorf("Discarded %d, want 2", k.Discarded())
	}
	if _, dropped := k.Push(job{"x", 0}); !dropped {
		t.Error("Push after cancel accepted")
	}
}
