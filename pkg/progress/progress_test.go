package progress

import "testing"

// The text each kind is shown with, and what a live line keeps: the
// renderings decide by kind, so the prefixes exist only here.
func TestEvent(t *testing.T) {
	tests := []struct {
		ev   Event
		text string
		keep bool
	}{
		{Stepf("Collected %d objects", 3), "Collected 3 objects", false},
		{Incidentf("Incident %s (workspace %s)", "0f8f", "/w"), "Incident 0f8f (workspace /w)", true},
		{Warnf("could not read %s", "logs"), "warning: could not read logs", true},
		{Agentf("%s", "kubectl get pods"), "  agent: kubectl get pods", false},
	}
	for _, tt := range tests {
		if got := tt.ev.String(); got != tt.text {
			t.Errorf("%+v: %q, want %q", tt.ev, got, tt.text)
		}
		if got := tt.ev.Keep(); got != tt.keep {
			t.Errorf("%+v: keep %v, want %v", tt.ev, got, tt.keep)
		}
	}
	var got []Event
	Func(func(e Event) { got = append(got, e) }).Printf("Resolving %s", "pod/api")
	if len(got) != 1 || got[0] != (Event{Kind: Step, Message: "Resolving pod/api"}) {
		t.Errorf("Printf sent %v", got)
	}
	Func(nil).Printf("nobody listens") // must not panic
}
