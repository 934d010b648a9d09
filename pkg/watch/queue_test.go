package watch

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestQueueOverflow(t *testing.T) {
	cases := []struct {
		policy   Overflow
		lost     []int // what each push of 1..5 into a queue of 3 dropped (0: nothing)
		contents []int
	}{
		{DropOldest, []int{0, 0, 0, 1, 2}, []int{3, 4, 5}},
		{DropNew, []int{0, 0, 0, 4, 5}, []int{1, 2, 3}},
	}
	for _, c := range cases {
		t.Run(c.policy.String(), func(t *testing.T) {
			q := NewQueue[int](3, c.policy)
			for i := 1; i <= 5; i++ {
				lost, dropped := q.Push(i)
				if (c.lost[i-1] != 0) != dropped || lost != c.lost[i-1] {
					t.Errorf("Push(%d) = %d, %v; want %d", i, lost, dropped, c.lost[i-1])
				}
			}
			if q.Len() != 3 || q.Dropped() != 2 || q.Cap() != 3 {
				t.Errorf("Len %d Dropped %d Cap %d", q.Len(), q.Dropped(), q.Cap())
			}
			for _, want := range c.contents {
				if v, err := q.Pop(context.Background()); err != nil || v != want {
					t.Errorf("Pop = %d, %v; want %d", v, err, want)
				}
			}
			if _, ok := q.TryPop(); ok {
				t.Error("TryPop on an empty queue")
			}
		})
	}
}

func TestParseOverflow(t *testing.T) {
	for s, want := range map[string]Overflow{"drop-oldest": DropOldest, "": DropOldest, "drop-new": DropNew} {
		if got, err := ParseOverflow(s); err != nil || got != want {
			t.Errorf("ParseOverflow(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseOverflow("block"); err == nil {
		t.Error("ParseOverflow(block) succeeded")
	}
}

func TestQueuePopBlocks(t *testing.T) {
	q := NewQueue[string](0, DropOldest)
	if q.Cap() != DefaultQueueSize {
		t.Errorf("default cap %d", q.Cap())
	}
	got := make(chan string)
	go func() {
		v, _ := q.Pop(context.Background())
		got <- v
	}()
	select {
	case v := <-got:
		t.Fatalf("Pop returned %q from an empty queue", v)
	case <-time.After(20 * time.Millisecond):
	}
	q.Push("x")
	select {
	case v := <-got:
		if v != "x" {
			t.Fatalf("Pop = %q", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Pop did not wake on Push")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := q.Pop(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Pop with ended context: %v", err)
	}
}

func TestQueueClose(t *testing.T) {
	q := NewQueue[int](10, DropOldest)
	q.Push(1)
	q.Push(2)
	done := make(chan error)
	q2 := NewQueue[int](10, DropOldest)
	go func() { _, err := q2.Pop(context.Background()); done <- err }()
	q.Close()
	q.Close() // idempotent
	q2.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("blocked Pop after Close: %v", err)
	}
	if _, dropped := q.Push(3); !dropped {
		t.Error("Push after Close was accepted")
	}
	for _, want := range []int{1, 2} {
		if v, err := q.Pop(context.Background()); err != nil || v != want {
			t.Fatalf("drain: %d %v", v, err)
		}
	}
	if _, err := q.Pop(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Pop on closed empty queue: %v", err)
	}
	if q.Dropped() != 1 {
		t.Errorf("Dropped %d", q.Dropped())
	}
}

// Many producers and consumers: every item is delivered once or counted as
// dropped, never both, never lost.
func TestQueueConcurrent(t *testing.T) {
	for _, policy := range []Overflow{DropOldest, DropNew} {
		t.Run(policy.String(), func(t *testing.T) {
			q := NewQueue[int](64, policy)
			const producers, per = 8, 2000
			var (
				pwg, cwg sync.WaitGroup
				mu       sync.Mutex
				seen     = map[int]int{}
				lost     = map[int]int{}
			)
			for c := 0; c < 4; c++ {
				cwg.Add(1)
				go func() {
					defer cwg.Done()
					for {
						v, err := q.Pop(context.Background())
						if err != nil {
							return
						}
						mu.Lock()
						seen[v]++
						mu.Unlock()
					}
				}()
			}
			for p := 0; p < producers; p++ {
				pwg.Add(1)
				go func() {
					defer pwg.Done()
					for i := 0; i < per; i++ {
						if l, dropped := q.Push(p*per + i); dropped {
							mu.Lock()
							lost[l]++
							mu.Unlock()
						}
					}
				}()
			}
			pwg.Wait()
			q.Close()
			cwg.Wait()
			for v := 0; v < producers*per; v++ {
				if seen[v]+lost[v] != 1 {
					t.Fatalf("item %d: delivered %d, dropped %d", v, seen[v], lost[v])
				}
			}
			if uint64(len(lost)) != q.Dropped() {
				t.Errorf("Dropped %d, lost %d", q.Dropped(), len(lost))
			}
		})
	}
}
