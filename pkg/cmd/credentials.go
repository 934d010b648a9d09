package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/pkg/readonly"
)

// checkCollectingCredentials checks the identity that collects the evidence
// when it is not the one checked for the agent (--agent-kubeconfig gives the
// agent its own): --require-readonly-credentials is about every identity
// the run uses, so a read-only agent identity alone does not pass it.
func (o *AgentFlags) checkCollectingCredentials(ctx context.Context, cfg *rest.Config, namespace string, progress func(string, ...any), errOut io.Writer) error {
	if o.AgentKubeconfig == "" {
		return nil // the same identity, checked already
	}
	const whose = "your kubeconfig's credentials (which collect the evidence)"
	rules, _, err := readonly.WritableRules(ctx, cfg, namespace)
	if err != nil {
		return err
	}
	if len(rules) == 0 {
		progress("Credentials check: %s cannot write in namespace %s", whose, namespace)
		return nil
	}
	msg := fmt.Sprintf("%s can write in namespace %s (%s)", whose, namespace, strings.Join(rules, "; "))
	if o.RequireReadOnly {
		return fmt.Errorf("%s; refusing to run because of --require-readonly-credentials: --agent-kubeconfig covers only the agent, so use a context bound to a read-only role for the run itself", msg)
	}
	fmt.Fprintf(errOut, "warning: %s. kubectl triage only reads, but a read-only context is safer.\n", msg)
	return nil
}
