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
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

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
	return demo(ctx, plugin, watchMode, os.Stdout)
}

// demo runs the demo, the plugin's stdout (the report) to stdout.
func demo(ctx context.Context, plugin string, watchMode bool, stdout io.Writer) error {

	say("starting a throwaway control plane (etcd + kube-apiserver + fake kubelet)…")
	c, err := testcluster.Start(ctx, testcluster.Options{})
	if err != nil {
		return err
	}
	defer c.Stop()

	say("creating deployment/checkout in namespace %s: a new revision whose pods crash-loop…", ns)
	if err := brokenDeployment(ctx, c, time.Now()); err != nil {
		return err
	}

	root, err := os.MkdirTemp("", "kubectl-triage-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if watchMode {
		return watch(ctx, c, plugin, root, stdout)
	}
	say("$ kubectl triage deploy/checkout -n %s", ns)
	cmd := exec.CommandContext(ctx, plugin, "deploy/checkout", "-n", ns)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.UserKubeconfig, "WORKSPACE_ROOT="+filepath.Join(root, "incidents"))
	cmd.Stdout, cmd.Stderr = stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kubectl triage: %w", err)
	}
	say("done; the control plane is being torn down")
	return nil
}

func say(format string, a ...any) { fmt.Fprintf(os.Stderr, "==> "+format+"\n", a...) }

// watch runs kubectl triage watch against a stand-in MCP server that then
// reports the crash-looping pod and the stuck rollout.
func watch(ctx context.Context, c *testcluster.Cluster, plugin, root string, stdout io.Writer) error {
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
	cmd.Stdout, cmd.Stderr = stdout, os.Stderr
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
	list.Stdout, list.Stderr = stdout, os.Stderr
	if err := list.Run(); err != nil {
		return fmt.Errorf("kubectl triage list: %w", err)
	}
	say("done; the control plane is being torn down")
	return nil
}
