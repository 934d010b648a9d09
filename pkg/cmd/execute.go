package cmd

import (
	"context"
	"fmt"
	"os"

	"github.com/go-logr/logr"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/kubectl-triage/kubectl-triage/internal/interrupt"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
)

// Execute runs kubectl triage with the process's arguments and returns the
// exit code. The first Ctrl-C or SIGTERM, even one during the process's
// initialisation, cancels gracefully (exit 130; an incident, if one was
// created, ends cancelled); a second one kills as usual.
func Execute() int {
	// The same binary is the agent sandbox's init; that never returns.
	sandbox.MaybeInit()
	ctx, stop := interrupt.Context(context.Background())
	defer stop()
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	return Run(ctx, streams, os.Args[1:])
}

// Run executes the command tree with args; tests call it in-process.
func Run(ctx context.Context, streams genericiooptions.IOStreams, args []string) int {
	// client-go logs transport retries through klog; the error we return
	// says it once, in one line.
	klog.SetLogger(logr.Discard())
	root := NewCmdTriage(streams)
	root.SetArgs(args)
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	if err := root.ExecuteContext(ctx); err != nil {
		if msg := err.Error(); msg != "" {
			msg, _ = redact.Text(msg) // errors may quote a fault or a server's answer
			fmt.Fprintf(streams.ErrOut, "error: %s\n", term.Clean(msg))
		}
		return codeOf(err)
	}
	return ExitResolved
}
