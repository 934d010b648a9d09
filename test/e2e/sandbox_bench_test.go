package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/gateway"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// agentRole is this test binary run as an agent CLI inside the sandbox.
func agentRole(role string) int {
	switch role {
	case "started": // note when the agent began, print a report
		os.WriteFile(filepath.Join("output", "started"), []byte(strconv.FormatInt(time.Now().UnixNano(), 10)), 0o600)
	case "gateway-latency": // GETs through the gateway from inside the sandbox
		cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		cfg.QPS = -1
		cs := kubernetes.NewForConfigOrDie(cfg)
		ns := os.Getenv("KUBERNETES_NAMESPACE")
		n, _ := strconv.Atoi(os.Getenv("BENCH_N"))
		var lat []time.Duration
		for i := 0; i <= n; i++ {
			start := time.Now()
			if _, err := cs.CoreV1().Pods(ns).Get(context.Background(), "api", metav1.GetOptions{}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			if i > 0 { // the first one opens the connection
				lat = append(lat, time.Since(start))
			}
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		os.WriteFile(filepath.Join("output", "latency"), []byte(fmt.Sprintf("%d %d", lat[len(lat)/2], lat[len(lat)*99/100])), 0o600)
	}
	fmt.Println("# Triage: Pod/api\n## Summary\nbenchmark\n## Root cause\nnone (speculation, 0.1)")
	return 0
}

// benchRun is one agent run as pkg/triage makes it: a workspace, a
// gateway, the agent (this binary in a role) in the chosen isolation.
func benchRun(b *testing.B, c *testcluster.Cluster, ns, role string, policy agent.SandboxPolicy, env ...string) (*workspace.Workspace, time.Time) {
	b.Helper()
	exe, _ := os.Executable()
	id := uuid.NewString()
	start := time.Now()
	ws, err := workspace.Create(b.TempDir(), id, func(tmp *workspace.Workspace, _ string) error {
		for rel, content := range map[string]string{workspace.PromptFile: "investigate", workspace.InstructionsFile: "READ-ONLY"} {
			if err := os.WriteFile(tmp.MustPath(rel), []byte(content), 0o600); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	gw, err := gateway.Start(c.UserConfig(), ws.MustPath(workspace.AuditFile))
	if err != nil {
		b.Fatal(err)
	}
	defer gw.Stop()
	kc, _ := gw.Kubeconfig(ns)
	os.WriteFile(ws.MustPath(workspace.AgentKubeconfig), kc, 0o600)
	setEnv := map[string]string{"KUBECTL_TRIAGE_E2E_ROLE": role}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		setEnv[k] = v
	}
	def := &agent.Definition{Name: "bench", Binary: exe, Output: "text", Report: "stdout", SetEnv: setEnv}
	home := b.TempDir()
	e := &agent.Exec{Def: def, Isolation: policy, Home: home, Environ: func() []string { return []string{"PATH=/usr/bin:/bin", "HOME=" + home} }}
	out, err := e.Run(context.Background(), &agent.Run{
		Workspace: ws, Incident: incident.Incident{IncidentID: id, Namespace: ns},
		Progress: progress.Discard, Gateway: strings.TrimPrefix(gw.URL, "https://"),
	})
	if err != nil || out.ExitCode != 0 {
		log, _ := os.ReadFile(ws.MustPath(workspace.AgentLogFile))
		b.Fatalf("agent: %v %+v\n%s", err, out, log)
	}
	return ws, start
}

// BenchmarkAgentStart is the time the plugin adds before the agent CLI
// starts: workspace, gateway, egress hub, sandbox (namespaces, in-memory
// home) — from nothing to the agent's first instruction.
func BenchmarkAgentStart(b *testing.B) {
	c := testcluster.Get(b)
	ns := c.Namespace(b)
	for _, tc := range []struct {
		name   string
		policy agent.SandboxPolicy
	}{{"sandboxed", agent.SandboxRequired}, {"unsandboxed", agent.SandboxDisabled}} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.policy == agent.SandboxRequired && sandbox.Probe() != nil {
				b.Skip("no namespaces here")
			}
			var lat []time.Duration
			for b.Loop() {
				ws, start := benchRun(b, c, ns, "started", tc.policy)
				data, err := os.ReadFile(ws.MustPath("output/started"))
				if err != nil {
					b.Fatal(err)
				}
				ns, _ := strconv.ParseInt(string(data), 10, 64)
				lat = append(lat, time.Unix(0, ns).Sub(start))
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-to-agent-p50")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms-to-agent-p99")
		})
	}
}

// BenchmarkSandboxedGatewayRequest is one GET from inside the sandbox: the
// init's loopback relay, the egress hub's forward, the gateway, the API
// server (compare with BenchmarkGatewayLatency's direct and gateway rows).
func BenchmarkSandboxedGatewayRequest(b *testing.B) {
	if sandbox.Probe() != nil {
		b.Skip("no namespaces here")
	}
	c := testcluster.Get(b)
	ns := c.Namespace(b)
	scenarioSetup(b, c, ns)
	ws, _ := benchRun(b, c, ns, "gateway-latency", agent.SandboxRequired, "BENCH_N="+strconv.Itoa(max(b.N, 200)))
	data, err := os.ReadFile(ws.MustPath("output/latency"))
	if err != nil {
		b.Fatal(err)
	}
	var p50, p99 int64
	fmt.Sscan(string(data), &p50, &p99)
	b.ReportMetric(float64(p50)/1e6, "ms-p50")
	b.ReportMetric(float64(p99)/1e6, "ms-p99")
}
