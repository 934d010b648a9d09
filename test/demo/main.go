// Command demo starts a throwaway control plane (etcd + kube-apiserver + a
// fake kubelet), creates a broken Deployment on it, runs kubectl triage on it
// with the builtin agent, prints the report and tears everything down.
// With -watch it runs watch mode instead: a stand-in kubernetes-mcp-server
// reports two faults of that Deployment and kubectl triage watch triages them.
//
//	go run ./test/demo -plugin bin/kubectl-triage [-watch]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-triage/kubectl-triage/test/mcpserver"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

const ns = "shop"

func main() {
	plugin := flag.String("plugin", "bin/kubectl-triage", "path to the kubectl-triage binary")
	watchMode := flag.Bool("watch", false, "demo kubectl triage watch with a stand-in MCP server")
	flag.Parse()
	if err := run(*plugin, *watchMode); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(plugin string, watchMode bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	say("starting a throwaway control plane (etcd + kube-apiserver + fake kubelet)…")
	c, err := testcluster.Start(ctx, testcluster.Options{})
	if err != nil {
		return err
	}
	defer c.Stop()

	say("creating deployment/checkout in namespace %s: a new revision whose pods crash-loop…", ns)
	if err := brokenDeployment(ctx, c); err != nil {
		return err
	}

	root, err := os.MkdirTemp("", "kubectl-triage-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if watchMode {
		return watch(ctx, c, plugin, root)
	}
	say("$ kubectl triage deploy/checkout -n %s", ns)
	cmd := exec.CommandContext(ctx, plugin, "deploy/checkout", "-n", ns)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.UserKubeconfig, "WORKSPACE_ROOT="+filepath.Join(root, "incidents"))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kubectl triage: %w", err)
	}
	say("done; the control plane is being torn down")
	return nil
}

func say(format string, a ...any) { fmt.Fprintf(os.Stderr, "==> "+format+"\n", a...) }

// brokenDeployment builds what the deployment controller and a kubelet would
// have left behind: revision 2 of checkout changed the image, and its pods
// exit because a required environment variable is missing.
func brokenDeployment(ctx context.Context, c *testcluster.Cluster) error {
	cs := c.Client
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	labels := map[string]string{"app": "checkout"}
	template := func(image string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: image,
				Env: []corev1.EnvVar{{Name: "DB_HOST", Value: "postgres.shop.svc"}}}}},
		}
	}
	replicas := int32(2)
	dep, err := cs.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "checkout", Annotations: map[string]string{"deployment.kubernetes.io/revision": "2"}},
		Spec:       appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template("shop/checkout:2.4.0")},
	}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	var newRS *appsv1.ReplicaSet
	for rev, rs := range map[string]struct{ hash, image string }{"1": {"6b9c7d5f4", "shop/checkout:2.3.1"}, "2": {"7d9f6c5b8", "shop/checkout:2.4.0"}} {
		tmpl := template(rs.image)
		tmpl.Labels = map[string]string{"app": "checkout", "pod-template-hash": rs.hash}
		n := int32(0)
		if rev == "2" {
			n = replicas
		}
		created, err := cs.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: "checkout-" + rs.hash, Labels: tmpl.Labels,
				Annotations:     map[string]string{"deployment.kubernetes.io/revision": rev},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(dep, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
			Spec: appsv1.ReplicaSetSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: tmpl.Labels}, Template: tmpl},
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if rev == "2" {
			newRS = created
		}
	}
	ago := func(m int) metav1.Time {
		return metav1.NewTime(time.Now().Add(-time.Duration(m) * time.Minute).Truncate(time.Second))
	}
	for _, sfx := range []string{"x2kq9", "p7w4m"} {
		name := newRS.Name + "-" + sfx
		tmpl := newRS.Spec.Template
		pod, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: tmpl.Labels,
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(newRS, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
			Spec: func() corev1.PodSpec { s := tmpl.Spec; s.NodeName = c.NodeName; return s }(),
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		pod.Status = corev1.PodStatus{
			Phase: corev1.PodRunning, HostIP: "127.0.0.1", StartTime: &metav1.Time{Time: ago(12).Time},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: ago(12)},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: ago(12)}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "api", Image: "shop/checkout:2.4.0", RestartCount: 6,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container=api pod=" + name}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 1, Reason: "Error", StartedAt: ago(2), FinishedAt: ago(2)}}}},
		}
		if _, err := cs.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			return err
		}
		c.SetLogs(ns, name, "api", true, "checkout 2.4.0 starting\nconnecting to postgres.shop.svc:5432\nFATAL config: required env DATABASE_URL is empty\n")
		if err := backOffEvent(ctx, cs, pod); err != nil {
			return err
		}
	}
	dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 2, UpdatedReplicas: 2, UnavailableReplicas: 2,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability.", LastUpdateTime: ago(12), LastTransitionTime: ago(12)},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: fmt.Sprintf("ReplicaSet %q has timed out progressing.", newRS.Name), LastUpdateTime: ago(2), LastTransitionTime: ago(2)}}}
	_, err = cs.AppsV1().Deployments(ns).UpdateStatus(ctx, dep, metav1.UpdateOptions{})
	return err
}

func backOffEvent(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod) error {
	now := metav1.Now()
	_, err := cs.CoreV1().Events(ns).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: pod.Name + "."},
		InvolvedObject: corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, Namespace: ns, UID: pod.UID, FieldPath: "spec.containers{api}"},
		Type:           corev1.EventTypeWarning, Reason: "BackOff", Count: 37,
		Message:        fmt.Sprintf("Back-off restarting failed container api in pod %s_%s(%s)", pod.Name, ns, pod.UID),
		FirstTimestamp: metav1.NewTime(now.Add(-11 * time.Minute)), LastTimestamp: now,
		Source: corev1.EventSource{Component: "kubelet", Host: "fake-node"},
	}, metav1.CreateOptions{})
	return err
}

// watch runs kubectl triage watch against a stand-in MCP server that then
// reports the crash-looping pod and the stuck rollout.
func watch(ctx context.Context, c *testcluster.Cluster, plugin, root string) error {
	srv := mcpserver.New(mcpserver.Options{})
	endpoint, err := srv.Start()
	if err != nil {
		return err
	}
	defer srv.Close()
	say("a stand-in kubernetes-mcp-server is listening on %s", endpoint)
	say("$ kubectl triage watch --mcp-endpoint %s --max-incidents 2", endpoint)
	cmd := exec.CommandContext(ctx, plugin, "watch", "--mcp-endpoint", endpoint, "--max-incidents", "2")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.UserKubeconfig, "WORKSPACE_ROOT="+filepath.Join(root, "incidents"))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := srv.WaitSubscribed(waitCtx, 1); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return err
	}
	now := time.Now().UTC().Format(time.RFC3339)
	faults := []string{
		fmt.Sprintf(`{"faultId":"demo-1","faultType":"CrashLoop","severity":"critical","resource":{"apiVersion":"v1","kind":"Pod","name":"checkout-7d9f6c5b8-x2kq9","namespace":%q},"context":"Container api entered CrashLoopBackOff, restart count 6","timestamp":%q}`, ns, now),
		fmt.Sprintf(`{"faultId":"demo-2","faultType":"DeploymentFailure","severity":"critical","resource":{"apiVersion":"apps/v1","kind":"Deployment","name":"checkout","namespace":%q},"context":"Deployment exceeded its progress deadline","timestamp":%q}`, ns, now),
	}
	for _, f := range faults {
		if _, err := srv.Send(mcpserver.ModeFaults, json.RawMessage(f)); err != nil {
			return err
		}
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("kubectl triage watch: %w", err)
	}
	say("$ kubectl triage list")
	list := exec.CommandContext(ctx, plugin, "list")
	list.Env = cmd.Env
	list.Stdout, list.Stderr = os.Stdout, os.Stderr
	if err := list.Run(); err != nil {
		return fmt.Errorf("kubectl triage list: %w", err)
	}
	say("done; the control plane is being torn down")
	return nil
}
