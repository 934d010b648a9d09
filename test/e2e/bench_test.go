package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// crowdedNamespaces caches one namespace per size: building 5,000 pods and
// events takes a while and the benchmark loop must not pay for it.
var (
	crowdedMu sync.Mutex
	crowded   = map[int]string{}
)

// crowdedNamespace returns a namespace holding size pods and size events
// about them, plus the crash-looping pod "api" with its own events and logs.
func crowdedNamespace(b *testing.B, c *testcluster.Cluster, size int) string {
	crowdedMu.Lock()
	defer crowdedMu.Unlock()
	if ns, ok := crowded[size]; ok {
		return ns
	}
	ns := c.Namespace(b)
	scenarioSetup(b, c, ns)
	ctx := context.Background()
	work := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				name := fmt.Sprintf("filler-%05d", i)
				pod, err := c.Client.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "filler"}},
					Spec:       corev1.PodSpec{NodeName: c.NodeName, Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36"}}},
				}, metav1.CreateOptions{})
				if err == nil {
					now := metav1.Now()
					_, err = c.Client.CoreV1().Events(ns).Create(ctx, &corev1.Event{
						ObjectMeta:     metav1.ObjectMeta{GenerateName: name + "."},
						InvolvedObject: corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Name: name, Namespace: ns, UID: pod.UID},
						Type:           corev1.EventTypeNormal, Reason: "Pulled", Message: "Successfully pulled image", Count: 1,
						FirstTimestamp: now, LastTimestamp: now, Source: corev1.EventSource{Component: "kubelet"},
					}, metav1.CreateOptions{})
				}
				if err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for i := 0; i < size; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatalf("fill namespace: %v", err)
	default:
	}
	crowded[size] = ns
	return ns
}

// scenarioSetup builds the crash-looping pod the benchmark triages.
func scenarioSetup(b *testing.B, c *testcluster.Cluster, ns string) {
	p := simplePod("api", func(p *corev1.Pod) {
		p.Namespace = ns
		p.Status = crashStatus("app", 1, "Error", 5)
	})
	p = c.CreatePod(b, p)
	c.SetLogs(ns, "api", "app", true, "FATAL config: required env DATABASE_URL is empty\n")
	c.Event(b, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 42, Message: "Back-off restarting failed container app"})
}

// BenchmarkTriagePod is the whole builtin triage of one pod (resolve,
// collect, investigate, write the workspace), run as a user runs it (the
// built binary, so it compares fairly with kubectl describe), in namespaces
// of growing size. requests/op comes from the API server's audit log: it
// must not grow with the namespace.
func BenchmarkTriagePod(b *testing.B) {
	c := testcluster.Get(b)
	for _, size := range []int{1000, 10000} {
		ns := crowdedNamespace(b, c, size)
		b.Run(fmt.Sprintf("pods=%d", size), func(b *testing.B) {
			bin := pluginBinary(b)
			env := append(c.Env(), "KUBECONFIG="+c.UserKubeconfig, "WORKSPACE_ROOT="+b.TempDir())
			run := func() {
				cmd := exec.Command(bin, "-q", "-n", ns, "pod/api")
				cmd.Env = env
				var errOut bytes.Buffer
				cmd.Stderr = &errOut
				if err := cmd.Run(); err != nil {
					b.Fatalf("kubectl-triage: %v\n%s", err, errOut.String())
				}
			}
			run() // warm the discovery cache, as a user's second run would be
			mark := c.AuditMark()
			b.ResetTimer()
			for b.Loop() {
				run()
			}
			b.StopTimer()
			requests := len(c.AuditSince(b, mark, c.UserName))
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
		})
	}
}

// BenchmarkKubectlDescribePod is the baseline the triage is compared with:
// the real kubectl describing the same pod in the same namespaces.
func BenchmarkKubectlDescribePod(b *testing.B) {
	c := testcluster.Get(b)
	for _, size := range []int{1000, 10000} {
		ns := crowdedNamespace(b, c, size)
		b.Run(fmt.Sprintf("pods=%d", size), func(b *testing.B) {
			env := append(c.Env(), "KUBECONFIG="+c.UserKubeconfig)
			run := func() {
				cmd := exec.Command(c.KubectlPath, "describe", "pod", "api", "-n", ns)
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("kubectl describe: %v\n%s", err, out)
				}
			}
			run()
			mark := c.AuditMark()
			b.ResetTimer()
			for b.Loop() {
				run()
			}
			b.StopTimer()
			b.ReportMetric(float64(len(c.AuditSince(b, mark, c.UserName)))/float64(b.N), "requests/op")
		})
	}
}

// byHandTarget is what one-pod triage must cost at most, as a share of the
// by-hand pair (kubectl describe pod, then kubectl logs --previous) on the
// same control plane; byHandRequests bounds its object requests.
const (
	byHandTarget   = 0.7
	byHandRequests = 10 // fewer than
)

// BenchmarkTriageVsByHand is the one-pod triage of the crash-looping pod
// against what a person types to learn the same, `kubectl describe pod` and
// `kubectl logs --previous`, in a namespace of 10,000 pods and as many
// events. The two run in interleaved rounds, the order alternating, so a
// load that comes and goes on a shared machine falls on both alike.
// ratio is the triage's total time over the pair's; requests/op the
// triage's object requests (discovery excluded: it is cached on disk).
// With KUBECTL_TRIAGE_BASELINE_BIN set (another build, e.g. main's), that
// binary runs in the same rounds too and baseline-ratio is its ratio.
func BenchmarkTriageVsByHand(b *testing.B) {
	c := testcluster.Get(b)
	ns := crowdedNamespace(b, c, 10000)
	b.Run("pods=10000", func(b *testing.B) {
		env := append(c.Env(), "KUBECONFIG="+c.UserKubeconfig, "WORKSPACE_ROOT="+b.TempDir())
		timed := func(name string, args ...string) time.Duration {
			cmd := exec.Command(name, args...)
			cmd.Env = env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out.String())
			}
			return time.Since(start)
		}
		// Every binary runs as written by write(2), not as the linker left
		// it (see BenchmarkFootprint): the page cache would be measured.
		dir := b.TempDir()
		written := func(from string) string {
			if from == "" {
				return ""
			}
			to := filepath.Join(dir, fmt.Sprintf("%d-%s", len(from), filepath.Base(from)))
			copyFile(b, from, to)
			return to
		}
		bin, baseline, kubectl := written(pluginBinary(b)), written(os.Getenv("KUBECTL_TRIAGE_BASELINE_BIN")), written(c.KubectlPath)
		requests := 0
		triage := func(bin string, count bool) time.Duration {
			mark := c.AuditMark()
			d := timed(bin, "-q", "-n", ns, "pod/api")
			if count {
				for _, e := range c.AuditSince(b, mark, c.UserName) {
					if !discovery(e.RequestURI) {
						requests++
					}
				}
			}
			return d
		}
		byHand := func() time.Duration {
			return timed(kubectl, "describe", "pod", "api", "-n", ns) +
				timed(kubectl, "logs", "--previous", "api", "-n", ns)
		}
		// Warm the discovery caches, as a user's second command would be.
		triage(bin, false)
		byHand()
		if baseline != "" {
			triage(baseline, false)
		}
		var tTriage, tHand, tBase time.Duration
		// Each round's own ratio too: on a shared machine one load spike
		// moves the totals' ratio, the median of the rounds' much less.
		var rounds []float64
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			var rt, rh time.Duration
			steps := []func(){
				func() { rt = triage(bin, true); tTriage += rt },
				func() { rh = byHand(); tHand += rh },
			}
			if baseline != "" {
				steps = append(steps, func() { tBase += triage(baseline, false) })
			}
			for j := range steps {
				steps[(i+j)%len(steps)]() // each goes first in turn
			}
			rounds = append(rounds, float64(rt)/float64(rh))
		}
		b.StopTimer()
		n := float64(b.N)
		ratio := float64(tTriage) / float64(tHand)
		slices.Sort(rounds)
		median := rounds[len(rounds)/2]
		b.ReportMetric(ratio, "ratio")
		b.ReportMetric(median, "median-round-ratio")
		b.ReportMetric(float64(tTriage.Milliseconds())/n, "triage-ms/op")
		b.ReportMetric(float64(tHand.Milliseconds())/n, "by-hand-ms/op")
		b.ReportMetric(float64(requests)/n, "requests/op")
		line := fmt.Sprintf("10,000 pods: triage %.0f ms, describe + logs --previous %.0f ms: ratio %.2f (target ≤ %.1f), median of rounds %.2f (%.2f–%.2f); %.0f object requests (target < %d)",
			float64(tTriage.Milliseconds())/n, float64(tHand.Milliseconds())/n, ratio, byHandTarget, median, rounds[0], rounds[len(rounds)-1], float64(requests)/n, byHandRequests)
		if baseline != "" {
			b.ReportMetric(float64(tBase)/float64(tHand), "baseline-ratio")
			line += fmt.Sprintf("; baseline %s %.0f ms: ratio %.2f", filepath.Base(baseline), float64(tBase.Milliseconds())/n, float64(tBase)/float64(tHand))
		}
		b.Log(line)
		if ratio > byHandTarget {
			b.Errorf("one-pod triage takes %.2f of the by-hand pair: above the %.1f target", ratio, byHandTarget)
		}
		if float64(requests)/n >= byHandRequests {
			b.Errorf("one-pod triage makes %.0f object requests: want fewer than %d", float64(requests)/n, byHandRequests)
		}
	})
}

// copyFile copies a binary into a new file, as an archive's extraction
// writes it (not through mmap, as the linker does).
func copyFile(b *testing.B, from, to string) {
	b.Helper()
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
