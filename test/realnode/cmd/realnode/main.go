// Command realnode runs a command next to a real node (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, containerd, kubelet) in network
// and mount namespaces of its own, then tears it all down and restores the
// host:
//
//	realnode check              # can the real-node tier run here? (one line)
//	realnode run -- CMD ARGS…   # CMD runs inside, with KUBECONFIG (cluster
//	                            # admin) and KUBECTL set; exits with its code
//	realnode demo -plugin BIN   # a Deployment crash-looping for real, and
//	                            # kubectl triage's report on it (make demo-real)
//
// The node is reachable only from inside its namespace, so CMD is where the
// work happens, e.g. `realnode run -- sh -c '$KUBECTL get nodes'`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/realnode"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "check":
		if why := realnode.Unavailable(); why != "" {
			fmt.Println("real node: tier skipped: " + why)
			return
		}
		fmt.Println("real node: available (root, containerd, runc, busybox-static, CNI plugins)")
	case "run":
		args := os.Args[2:]
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) == 0 {
			usage()
		}
		os.Exit(isolated(func(ctx context.Context, n *realnode.Node) int { return runCommand(ctx, n, args) }))
	case "demo":
		fs := flag.NewFlagSet("demo", flag.ExitOnError)
		plugin := fs.String("plugin", "", "the kubectl-triage binary (required)")
		_ = fs.Parse(os.Args[2:])
		if *plugin == "" {
			usage()
		}
		os.Exit(isolated(func(ctx context.Context, n *realnode.Node) int { return demo(ctx, n, *plugin) }))
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: realnode check | realnode run -- CMD [ARGS...] | realnode demo -plugin BIN")
	os.Exit(2)
}

// isolated re-runs this command in the node's namespaces (the parent then
// restores the host); inside, it starts the node and calls inside.
func isolated(inside func(context.Context, *realnode.Node) int) int {
	dir := realnode.InsideDir()
	if dir == "" {
		if why := realnode.Unavailable(); why != "" {
			fmt.Fprintln(os.Stderr, "real node: "+why)
			return 1
		}
		binDir, err := realnode.FindBinDir()
		if err != nil {
			fmt.Fprintln(os.Stderr, "realnode:", err)
			return 1
		}
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, "realnode:", err)
			return 1
		}
		code, err := realnode.Isolate(append([]string{self}, os.Args[1:]...), realnode.EnvTestBin+"="+binDir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "realnode:", err)
		}
		return code
	}
	if err := realnode.RecordNetns(dir); err != nil {
		fmt.Fprintln(os.Stderr, "realnode:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	bctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	n, err := realnode.Start(bctx, dir, os.Getenv(realnode.EnvTestBin))
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "realnode:", err)
		return 1
	}
	defer n.Stop()
	fmt.Fprintf(os.Stderr, "realnode: node %s Ready in %v; logs in %s\n", realnode.NodeName, n.StartedIn.Round(time.Millisecond), n.LogsDir())
	return inside(ctx, n)
}

func runCommand(ctx context.Context, n *realnode.Node, args []string) int {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "KUBECONFIG="+n.AdminKubeconfig, "KUBECTL="+n.KubectlPath,
		"KUBECACHEDIR="+filepath.Join(n.Dir, "kube-cache"), "REALNODE_USER_KUBECONFIG="+n.UserKubeconfig)
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "realnode:", err)
		return 1
	}
	return 0
}
