// Command pause is the pod sandbox's process on the real node: it holds the
// pod's namespaces and does nothing else until it is told to stop. It is
// built statically (CGO_ENABLED=0) into the node's offline image, because
// the tests pull nothing from a registry.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 1)
	// As PID 1 of its namespace it gets no default signal handling: without
	// this, SIGTERM would be ignored and every pod stop would wait for SIGKILL.
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	<-sigs
}
