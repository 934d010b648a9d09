package investigate

import (
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/registry"
)

// Rules is the catalogue an investigation runs (package registry lists it);
// a variable so that a test can run one area alone.
var Rules = registry.Rules
