package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/realnode"
)

// demo deploys a checkout service whose pods exit on a missing setting,
// the way a Go service using envconfig does, waits until the real kubelet
// has them in CrashLoopBackOff, and triages the Deployment.
func demo(ctx context.Context, n *realnode.Node, plugin string) int {
	const ns = "shop"
	if err := demoSetup(ctx, n, ns); err != nil {
		fmt.Fprintln(os.Stderr, "realnode demo:", err)
		return 1
	}
	fmt.Fprintln(os.Stderr, "realnode demo: deployment/checkout is crash-looping on the real node; triaging it")
	tmp, err := os.MkdirTemp(n.Dir, "demo-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "realnode demo:", err)
		return 1
	}
	cmd := exec.CommandContext(ctx, plugin, "deploy/checkout", "-n", ns, "--kubeconfig", n.UserKubeconfig,
		"--workspace-root", filepath.Join(tmp, "incidents"), "--cache-dir", filepath.Join(tmp, "cache"))
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+tmp)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	_ = cmd.Run() // the report is the output; a found fault may exit non-zero
	return 0
}

func demoSetup(ctx context.Context, n *realnode.Node, ns string) error {
	cs := n.Client
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	labels := map[string]string{"app": "checkout"}
	one, no, grace := int32(1), false, int64(1)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "checkout"},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				HostNetwork: true, AutomountServiceAccountToken: &no, TerminationGracePeriodSeconds: &grace,
				Containers: []corev1.Container{{Name: "checkout", Image: realnode.BusyboxImage, ImagePullPolicy: corev1.PullNever,
					Command: []string{"sh", "-c", `echo '{"level":"info","msg":"starting checkout","version":"1.8.0"}'; ` +
						`echo '{"level":"fatal","msg":"load config","error":"required key PAYMENT_API_URL missing value"}'; exit 1`}}},
			}}},
	}
	deadline := time.Now().Add(time.Minute)
	for { // the default ServiceAccount comes from the controller-manager
		_, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
	for until := time.Now().Add(3 * time.Minute); time.Now().Before(until); {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err == nil {
			for _, p := range pods.Items {
				for _, st := range p.Status.ContainerStatuses {
					if st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff" {
						return nil
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return fmt.Errorf("no pod reached CrashLoopBackOff")
}
