package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/mcpserver"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// burstFaults is the size of the burst.
const burstFaults = 1000

// burstMemoryLimit is the watch's memory limit in the Deployment that
// `kubectl triage install` prints: a burst must stay well within it.
const burstMemoryLimit = 512 << 20

// BenchmarkWatchBurst: 1,000 faults (distinct pods, critical) arrive at
// once from an MCP server; the real binary triages them with the builtin
// agent against the test control plane. Reported: the process's peak RSS
// (VmHWM) and the time from the first fault to the last outcome (drain),
// with every fault accounted for: triaged, or dropped by the bounded queue
// (counted in kubectl_triage_events_dropped_total) or at the MCP hand-off
// (kubectl_triage_handoff_dropped_total). queue=1000 holds the whole burst;
// queue=100 overflows, and drops are counted, not lost.
//
//	make bench, or: go test ./test/e2e -run '^$' -bench WatchBurst -benchtime 1x
func BenchmarkWatchBurst(b *testing.B) {
	c := testcluster.Get(b)
	for _, queue := range []int{1000, 100} {
		b.Run(fmt.Sprintf("queue=%d", queue), func(b *testing.B) {
			for range b.N {
				burst(b, c, queue)
			}
		})
	}
}

func burst(b *testing.B, c *testcluster.Cluster, queue int) {
	ns := "burst-" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36) // the pods need not exist: triage reports them gone
	mcp := mcpserver.New(mcpserver.Options{})
	if _, err := mcp.Start(); err != nil {
		b.Fatal(err)
	}
	defer mcp.Close()
	dir := b.TempDir()
	cmd := exec.Command(pluginBinary(b), "watch", "--kubeconfig", c.UserKubeconfig, "--cache-dir", filepath.Join(dir, "cache"),
		"--workspace-root", filepath.Join(dir, "incidents"), "--log-format", "json", "-o", "json",
		"--mcp-endpoint", mcp.Endpoint(), "--max-queue", strconv.Itoa(queue), "--metrics-addr", "127.0.0.1:0", "--log-level", "info")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"K8S_CLUSTER_MCP_ENDPOINT=", "SLACK_WEBHOOK_URL=", "KUBECTL_TRIAGE_CONFIG=")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var outcomes atomic.Int64
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			outcomes.Add(1)
		}
	}()
	var addr string
	for deadline := time.Now().Add(time.Minute); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := regexp.MustCompile(`"msg":"serving metrics","addr":"([^"]+)"`).FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := mcp.WaitSubscribed(ctx, 1); err != nil || addr == "" {
		b.Fatalf("watch did not start (%v); stderr:\n%s", err, stderr.String())
	}

	b.ResetTimer()
	start := time.Now()
	for i := range burstFaults {
		if _, err := mcp.Send(mcpserver.ModeFaults, podFault(ns, fmt.Sprintf("burst-%04d", i), "CrashLoop", "critical")); err != nil {
			b.Fatal(err)
		}
	}
	sent := time.Since(start)
	metric := func(name string) int64 {
		m := regexp.MustCompile(`(?m)^` + name + `\{[^}]*\} (\S+)$`).FindStringSubmatch(httpBodyTB(b, "http://"+addr+"/metrics"))
		if m == nil {
			return 0
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return int64(v)
	}
	// Drained: every fault received is accounted for, and every queued
	// one has its outcome line.
	var received, enqueued, dropped, handoff int64
	deadline := time.Now().Add(10 * time.Minute)
	for {
		received, enqueued = metric("kubectl_triage_events_received_total"), metric("kubectl_triage_events_enqueued_total")
		dropped, handoff = metric("kubectl_triage_events_dropped_total"), metric("kubectl_triage_handoff_dropped_total")
		if received+handoff == burstFaults && outcomes.Load() == enqueued-dropped && metric("kubectl_triage_queue_depth") == 0 && metric("agent_runtime_active_agents") == 0 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("not drained: received %d, handoff drops %d, enqueued %d, dropped %d, outcomes %d; stderr tail:\n%s",
				received, handoff, enqueued, dropped, outcomes.Load(), tail(stderr.String(), 20))
		}
		time.Sleep(50 * time.Millisecond)
	}
	drain := time.Since(start)
	b.StopTimer()
	hwm := peakRSS(b, cmd.Process.Pid)
	if hwm > burstMemoryLimit {
		b.Errorf("peak RSS %d MiB: above the Deployment's 512 MiB limit", hwm>>20)
	}
	if queue >= burstFaults && dropped+handoff != 0 {
		b.Errorf("a queue of %d dropped %d faults (handoff %d)", queue, dropped, handoff)
	}
	if queue < burstFaults && dropped == 0 {
		b.Errorf("a queue of %d never overflowed: the drop path is not measured", queue)
	}
	b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(drain.Seconds(), "drain-s")
	b.ReportMetric(sent.Seconds(), "send-s")
	b.ReportMetric(float64(outcomes.Load()), "triaged")
	b.ReportMetric(float64(dropped+handoff), "dropped")
}

func httpBodyTB(tb testing.TB, url string) string {
	tb.Helper()
	resp, err := httpGetBody(url)
	if err != nil {
		tb.Fatal(err)
	}
	return resp
}

// peakRSS is a process's peak resident set (VmHWM), in bytes.
func peakRSS(tb testing.TB, pid int) int64 {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	tb.Fatal("no VmHWM in /proc status")
	return 0
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
