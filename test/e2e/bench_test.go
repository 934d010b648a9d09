package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sync"
	"testing"

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
