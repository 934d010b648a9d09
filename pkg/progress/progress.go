// Package progress is what a run reports while it works: typed events that
// the engine, the agents and the commands emit, and that each front end
// renders its own way (the terminal's live line, MCP progress
// notifications, debug logs). A front end decides what to do by Kind, never
// by matching the text.
package progress

import "fmt"

// Kind says what an event is about.
type Kind string

const (
	// Step is one step of the run (resolving, collecting, investigating):
	// it replaces the previous one on a live line.
	Step Kind = "step"
	// Incident says the incident exists: its ID and workspace, worth
	// keeping on screen.
	Incident Kind = "incident"
	// Warning is something the user must know (no sandbox, evidence that
	// could not be read, a rejected artifact).
	Warning Kind = "warning"
	// Agent is the agent's own activity, as its output stream reports it
	// (a tool call).
	Agent Kind = "agent"
)

// Event is one report of progress. Message carries no prefix: String adds
// the one its kind is shown with.
type Event struct {
	Kind    Kind
	Message string
}

// String is the event as one line of text, the form terminals, logs and
// MCP clients show.
func (e Event) String() string {
	switch e.Kind {
	case Warning:
		return "warning: " + e.Message
	case Agent:
		return "  agent: " + e.Message
	}
	return e.Message
}

// Keep reports whether the event is worth keeping on screen once the next
// step replaces it.
func (e Event) Keep() bool { return e.Kind == Warning || e.Kind == Incident }

// Func receives events; it may be called from several goroutines.
type Func func(Event)

// Discard ignores every event.
func Discard(Event) {}

// Stepf makes a Step event.
func Stepf(format string, a ...any) Event {
	return Event{Kind: Step, Message: fmt.Sprintf(format, a...)}
}

// Warnf makes a Warning event.
func Warnf(format string, a ...any) Event {
	return Event{Kind: Warning, Message: fmt.Sprintf(format, a...)}
}

// Incidentf makes an Incident event.
func Incidentf(format string, a ...any) Event {
	return Event{Kind: Incident, Message: fmt.Sprintf(format, a...)}
}

// Agentf makes an Agent event.
func Agentf(format string, a ...any) Event {
	return Event{Kind: Agent, Message: fmt.Sprintf(format, a...)}
}

// Printf adapts f to the printf-style callbacks of code that reports
// plain steps (credential checks, target resolution).
func (f Func) Printf(format string, a ...any) {
	if f != nil {
		f(Stepf(format, a...))
	}
}
