package mcpsource_test

import (
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/test/mcpserver"
)

// TestNonObjectDataIsHandedOn: a frame whose data is a string or an array
// is not a fault, but it is not dropped silently either: it reaches the
// handler, whose parser counts it as a parse error.
func TestNonObjectDataIsHandedOn(t *testing.T) {
	srv, endpoint := startServer(t, mcpserver.Options{})
	got := newCollector()
	r := runSource(t, fast(endpoint), got.handle)
	r.ready(t, srv)
	send(t, srv, "faults", `"just a string"`)
	send(t, srv, "faults", `[1, "two", {"three": 3}]`)
	send(t, srv, "faults", fault1("after"))
	msgs := got.wait(t, 3)
	if len(msgs) != 3 {
		t.Fatalf("got %d messages, want 3", len(msgs))
	}
	for i, m := range msgs[:2] {
		if _, _, err := fault.ParseMessage(m.Logger, m.Level, m.Data); err == nil {
			t.Errorf("message %d (%s) parsed as a fault", i, m.Data)
		}
	}
	if ev, _, err := fault.ParseMessage(msgs[2].Logger, msgs[2].Level, msgs[2].Data); err != nil || ev.ResourceName() != "after" {
		t.Errorf("the fault after them: %v %v", ev, err)
	}
}
