package watch

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// distinctFrames makes n notification frames in today's flat faults shape,
// for n distinct pods, like fixture line 1.
func distinctFrames(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(fmt.Sprintf(`{"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": {"subscriptionId": "sub-e601dd09", "cluster": "prod-east", "faultId": "%016x", "faultType": "CrashLoop", "severity": "critical", "resource": {"apiVersion": "v1", "kind": "Pod", "name": "checkout-7d9f6c5b8-%06d", "namespace": "shop", "uid": "3b2681be-da83-47ae-ba60-%012d"}, "context": "Container entered CrashLoopBackOff state, restart count: 1, waiting message: back-off 10s restarting failed container=api, last exit code: 1, last reason: Error", "timestamp": "2026-11-21T15:46:27Z"}, "level": "warning", "logger": "kubernetes/faults"}}`, i, i, i))
	}
	return out
}

// BenchmarkIngest: Parse → eventId → filter → dedup → enqueue, one
// notification per op. Half the frames repeat a key (deduplicated), the rest
// go into a bounded drop-oldest queue nobody drains (the overflow path).
func BenchmarkIngest(b *testing.B) {
	for _, shape := range []string{"flat-frame", "nested-frame"} {
		b.Run(shape, func(b *testing.B) {
			frames := distinctFrames(4096)
			if shape == "nested-frame" {
				for i := range frames {
					frames[i] = []byte(fmt.Sprintf(`{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "warning", "logger": "kubernetes/faults", "data": {"subscriptionId": "sub-1a2b3c4d", "cluster": "prod-east", "event": {"namespace": "shop", "timestamp": "2026-11-21T15:40:02Z", "type": "Warning", "reason": "BackOff", "message": "Back-off restarting failed container api in pod checkout-%06d_shop", "labels": {"app": "checkout"}, "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "checkout-%06d", "namespace": "shop", "uid": "6f1c2d3e-0000-4000-8000-%012d"}, "count": 7}, "logs": [{"container": "api", "previous": true, "hasPanic": false, "sample": "2026-11-21T15:39:58Z FATAL config: required env DATABASE_URL is empty"}]}}}`, i, i, i))
				}
			}
			f, _ := NewFilter("warning")
			q := NewQueue[*fault.Event](1024, DropOldest)
			var c Counters
			now := t0
			p := &Pipeline{Filter: f, Dedup: NewDedup(time.Hour, 0), Sink: q, Counters: &c, Now: func() time.Time { return now }}
			size := 0
			for _, fr := range frames {
				size += len(fr)
			}
			b.SetBytes(int64(size / len(frames)))
			b.ReportAllocs()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// Every other op repeats the previous frame: a duplicate.
				if _, err := p.Ingest(frames[(i/2)%len(frames)]); err != nil {
					b.Fatal(err)
				}
				if i%4096 == 0 {
					now = now.Add(2 * time.Hour) // let keys expire, so distinct frames stay new
				}
			}
			b.StopTimer()
			cpu := cpuTime() - cpu0
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N), "bytes/event")
			if cpu > 0 {
				// CPU time (GC included) per event, and the rate one core sustains.
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/event")
				b.ReportMetric(float64(b.N)/cpu.Seconds(), "events/cpu-s")
			}
			if s := c.Snapshot(); b.N > 2 && (s.Deduplicated == 0 || s.Enqueued == 0) {
				b.Fatalf("pipeline did nothing: %+v", s)
			}
		})
	}
}

// BenchmarkDedupMemory: heap held by a Dedup of 1M distinct keys (its copies
// of key strings of a realistic 50-odd bytes included), reported per key.
//
//	go test ./pkg/watch -run '^$' -bench DedupMemory -benchtime 1x
func BenchmarkDedupMemory(b *testing.B) {
	const n = 1_000_000
	for i := 0; i < b.N; i++ {
		keys := make([]string, n)
		keyBytes := 0
		for j := range keys {
			keys[j] = fmt.Sprintf("prod-east/shop/Pod/checkout-7d9f6c5b8-%07d/CrashLoop", j)
			keyBytes += len(keys[j])
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		d := NewDedup(time.Hour, n)
		for j, k := range keys {
			d.Seen(strings.Clone(k), t0.Add(time.Duration(j))) // the dedup owns its own copy, as KeyOf's
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if d.Len() != n {
			b.Fatalf("Len %d", d.Len())
		}
		held := float64(int64(after.HeapAlloc) - int64(before.HeapAlloc))
		b.ReportMetric(held/n, "bytes/key")
		b.ReportMetric(float64(keyBytes)/n, "keybytes/key")
		b.ReportMetric(held/(1<<20), "MiB/1Mkeys")
		runtime.KeepAlive(keys)
		runtime.KeepAlive(d)
	}
}

// BenchmarkGroupBurst: a node dies with 1,000 pods on it; each op ingests
// the node's fault and its pods' through filter, dedup and grouping. One
// fault is queued, the rest are members; reported: the heap the group holds
// per member and the ingest rate.
func BenchmarkGroupBurst(b *testing.B) {
	const pods = 1000
	node := fault.CauseKey("Node", "", "worker-3")
	f, _ := NewFilter("warning")
	b.ReportAllocs()
	var held float64
	for i := 0; i < b.N; i++ {
		q := NewQueue[*fault.Event](pods, DropOldest)
		var c Counters
		now := t0.Add(time.Duration(i) * time.Hour)
		p := &Pipeline{Filter: f, Dedup: NewDedup(15*time.Minute, 0), Group: NewGrouper(30 * time.Second), Sink: q, Counters: &c, Now: func() time.Time { return now }}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p.IngestEvent(&fault.Event{Cluster: "prod", FaultType: "NodeUnhealthy", Severity: "critical", Resource: &fault.Resource{Kind: "Node", Name: "worker-3"}})
		for j := range pods {
			p.IngestEvent(&fault.Event{Cluster: "prod", FaultType: "NodeUnhealthy", Severity: "critical", Causes: []string{node},
				Resource: &fault.Resource{Kind: "Pod", Namespace: "shop", Name: fmt.Sprintf("web-7d9f6c5b8-%05d", j)}})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if q.Len() != 1 || c.Grouped.Load() != pods {
			b.Fatalf("queued %d, grouped %d; want 1, %d", q.Len(), c.Grouped.Load(), pods)
		}
		held += float64(int64(after.HeapAlloc) - int64(before.HeapAlloc))
		runtime.KeepAlive(p)
	}
	b.ReportMetric(held/float64(b.N)/pods, "heap-bytes/member")
	b.ReportMetric(float64(b.N*(pods+1))/b.Elapsed().Seconds(), "events/s")
}
