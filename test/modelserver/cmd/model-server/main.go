// Command model-server serves the scripted model (test/modelserver) for a
// manual run of a real agent CLI without a vendor account:
//
//	go run ./test/modelserver/cmd/model-server -addr 127.0.0.1:8090 -log /tmp/requests.jsonl \
//	    -command 'kubectl get pods -n shop'
//	ANTHROPIC_BASE_URL=http://127.0.0.1:8090 ANTHROPIC_API_KEY=x kubectl triage pod/x -n shop --agent claude
//
// It answers Anthropic Messages, OpenAI Responses and Gemini requests: one
// -command per turn through the CLI's shell tool, then a report quoting the
// results. It prints the base URL on stdout and serves until interrupted.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/kubectl-triage/kubectl-triage/test/modelserver"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, "; ") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "listen address (loopback)")
	logPath := flag.String("log", "", "append each request as a JSON line to this file")
	var commands list
	flag.Var(&commands, "command", "a shell command the model runs, one per turn (repeatable)")
	flag.Parse()
	srv, err := modelserver.Start(*addr, modelserver.Script{Commands: commands}, *logPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "model-server: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(srv.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	srv.Close()
}
