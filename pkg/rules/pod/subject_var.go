package pod

import (
	"regexp"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// subjectVarRe reads the first variable a MissingEnv subject names:
// "environment variable X" or "environment variables X, Y (…)".
var subjectVarRe = regexp.MustCompile(`^environment variables? (?P<name>[A-Za-z_][A-Za-z0-9_]*)`)

func subjectVar(subject string) string {
	if m, ok := submatch.Find(subjectVarRe, subject); ok {
		return m.Get("name")
	}
	return ""
}
