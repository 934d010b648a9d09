package incident

// What incident.json records of an external agent's run beyond its
// outcome (DESIGN.md §4, §6): what it cost, how many of its report's claims
// held up against what it read, and how its root cause compares with the
// builtin investigator's.

// Claims counts the claims of the agent's report (pkg/claims).
type Claims struct {
	Verified   int `json:"verified"`
	Unverified int `json:"unverified"`
	// Capped: the root cause rests only on unverified claims, so its
	// confidence was lowered to speculation.
	Capped bool `json:"capped,omitempty"`
}

// Agreement is how an external agent's root cause compares with the
// builtin investigator's.
type Agreement string

const (
	// Agree: both name the same cause (or the agent confirmed or extended
	// the builtin's findings).
	Agree Agreement = "agree"
	// Differ: each names a different cause, or one calls the target
	// healthy and the other does not.
	Differ Agreement = "differ"
	// BuiltinHealthy: the builtin found the target healthy; the agent
	// names a fault.
	BuiltinHealthy Agreement = "builtin-healthy"
	// BuiltinUndetermined: the builtin saw symptoms no rule explains; the
	// agent's cause is the only one.
	BuiltinUndetermined Agreement = "builtin-undetermined"
)

// SecondOpinion is the comparison of an external agent's root cause with
// the builtin investigator's on the same bundle.
type SecondOpinion struct {
	BuiltinRootCause       string    `json:"builtinRootCause"`
	BuiltinConfidence      float64   `json:"builtinConfidence,omitempty"`
	BuiltinConfidenceLevel string    `json:"builtinConfidenceLevel,omitempty"`
	AgentRootCause         string    `json:"agentRootCause,omitempty"`
	Agreement              Agreement `json:"agreement"`
	// Basis says how the agreement was decided: the agent's own verdict on
	// the findings, or which of the builtin's culprit terms its root cause
	// names.
	Basis string `json:"basis,omitempty"`
	// AgentStance is what the agent said of the builtin's findings
	// (confirmed, refuted, extended), empty when it said nothing.
	AgentStance string `json:"agentStance,omitempty"`
	// Hinted: the agent was given the builtin's findings (false with
	// --no-builtin-hints).
	Hinted bool `json:"hinted"`
}
