// Command testcluster runs the test control plane (etcd, kube-apiserver,
// fake kubelet) for demos and manual testing:
//
//	go build -o bin/testcluster ./test/testcluster/cmd/testcluster
//	bin/testcluster up --dir /tmp/demo > /tmp/demo.env &
//	# once /tmp/demo.env is non-empty:
//	. /tmp/demo.env; "$KUBECTL" get nodes
//	kill %1
//
// `up` prints export lines for the triage-user kubeconfig and the kubectl
// binary on stdout once the cluster is ready, then runs until SIGINT/SIGTERM
// and removes DIR (unless KUBECTL_TRIAGE_KEEP=1). DIR must not exist or be
// empty. The admin kubeconfig is DIR/admin.kubeconfig.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "up" {
		fmt.Fprintln(os.Stderr, "usage: testcluster up --dir DIR")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("up", flag.ExitOnError)
	dir := fs.String("dir", "", "directory for state, logs and kubeconfigs (required; removed on exit)")
	_ = fs.Parse(os.Args[2:])
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "testcluster up: --dir is required")
		os.Exit(2)
	}
	if err := up(*dir); err != nil {
		fmt.Fprintf(os.Stderr, "testcluster: %v\n", err)
		os.Exit(1)
	}
}

func up(dir string) error {
	// Registered before Start so a ^C during startup still cleans up.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	t0 := time.Now()
	c, err := testcluster.Start(ctx, testcluster.Options{Dir: dir})
	if err != nil {
		return err
	}
	defer c.Stop()

	// Stdout carries only the export lines, so `eval "$(...)"` works.
	fmt.Printf("export KUBECONFIG=%s\n", c.UserKubeconfig)
	fmt.Printf("export KUBECTL=%s\n", c.KubectlPath)
	// Keeps kubectl's discovery cache for this throw-away cluster out of ~/.kube.
	fmt.Printf("export KUBECACHEDIR=%s\n", filepath.Join(c.Dir, "kube-cache"))
	fmt.Fprintf(os.Stderr, "testcluster: %s ready in %v; admin kubeconfig %s; logs in %s; ^C to stop\n",
		c.Server, time.Since(t0).Round(time.Millisecond), c.Kubeconfig, c.Dir)

	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "testcluster: stopping")
	return nil
}
