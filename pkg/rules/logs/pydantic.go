package logs

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

var (
	// pydanticMissingRe is pydantic's validation list (as applog joins it)
	// for a settings model with a required field missing.
	pydanticMissingRe = regexp.MustCompile(`validation errors? for \w*(?:Settings|Config|Env)\w*: .*(?i:field required)`)
	// pydanticFieldRe is one "location: message" item of the list.
	pydanticFieldRe = regexp.MustCompile(`(?:^|; |: )(?P<field>[A-Za-z_][\w.]*): (?i:field required)`)
)

// pydanticFields names the missing fields of a pydantic settings list and
// the variables that would set them.
func pydanticFields(line string) string {
	_, list, ok := strings.Cut(line, "validation error")
	if !ok {
		return ""
	}
	var fields, vars []string
	for _, m := range submatch.FindAll(pydanticFieldRe, list, 8) {
		f := m.Get("field")
		fields = append(fields, f)
		vars = append(vars, strings.ToUpper(strings.ReplaceAll(f, ".", "__")))
	}
	if len(fields) == 0 {
		return ""
	}
	what := "environment variable "
	if len(vars) > 1 {
		what = "environment variables "
	}
	return what + strings.Join(vars, ", ") + " (settings " + strings.Join(fields, ", ") + ")"
}
