package claims

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/kubectlcmd"

	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// want is one read a claim needs: of a resource (or a non-resource path),
// in a namespace, by name.
type want struct {
	path                  string // a non-resource path prefix (discovery, openapi, metrics)
	resource, subresource string
	namespace             string
	anyNamespace          bool
	name                  string
	container             string
	previous              bool
}

// index answers whether a read backs a want.
type index struct {
	reads []Read
	norm  []string // each read's text, normalised, made on first use
}

func newIndex(reads []Read) *index {
	return &index{reads: reads, norm: make([]string, len(reads))}
}

func (x *index) text(i int) string {
	if x.norm[i] == "" && x.reads[i].Text != "" {
		x.norm[i] = normalize(x.reads[i].Text)
	}
	return x.norm[i]
}

const notBacked = "nothing in output/audit.jsonl or context/ backs it"

// back finds the read that backs c; when none does, the string says why.
func (x *index) back(c report.Claim, namespace string) (string, bool) {
	switch c.Kind {
	case report.ClaimCommand:
		wants, why := commandWants(c.Text, namespace)
		if why != "" {
			return why, false
		}
		var basis []string
		for _, w := range wants {
			r, ok := x.find(w)
			if !ok {
				return "no read of it: " + notBacked, false
			}
			basis = append(basis, r.Where)
		}
		return strings.Join(unique(basis), "; "), true
	case report.ClaimObject:
		kind, name, _ := strings.Cut(c.Text, "/")
		if r, ok := x.find(want{resource: kubectlcmd.ResourceOf(kind), name: strings.ToLower(name), anyNamespace: true}); ok {
			return r.Where, true
		}
		return "no read of it: " + notBacked, false
	case report.ClaimQuote:
		if r, ok := x.quoted(c.Text); ok {
			return r.Where, true
		}
		return "no response the agent got and no context file holds this line", false
	}
	return "not a claim kubectl-triage can check", false
}

func (x *index) find(w want) (Read, bool) {
	for _, r := range x.reads {
		if x.backs(r, w) {
			return r, true
		}
	}
	return Read{}, false
}

func (x *index) backs(r Read, w want) bool {
	if w.path != "" {
		return r.Origin == Gateway && strings.HasPrefix(r.Path, w.path)
	}
	if r.Resource != w.resource || r.Subresource != w.subresource {
		return false
	}
	switch {
	case w.anyNamespace || clusterScoped[w.resource] || r.Namespace == w.namespace:
	case r.Origin == Gateway && r.Namespace == "" && r.Name == "":
		// A list across every namespace covers each.
	default:
		return false
	}
	if w.name != "" && r.Name != w.name && !(r.Name == "" && hasWord(r.Text, w.name)) {
		return false
	}
	if w.subresource == "log" {
		if w.container != "" && r.Container != "" && r.Container != w.container {
			return false
		}
		if w.previous != r.Previous {
			return false
		}
	}
	return true
}

// quoted finds a read whose text holds the line: as written (whitespace
// and case aside), or, for a line laid out by kubectl (a table row, a
// describe field), every word of it.
func (x *index) quoted(line string) (Read, bool) {
	q := normalize(strings.Trim(line, "`\"' "))
	if q == "" {
		return Read{}, false
	}
	words := strings.Fields(q)
	for i := range x.reads {
		if containsMasked(x.text(i), q) {
			return x.reads[i], true
		}
	}
	if len(words) < 3 {
		return Read{}, false
	}
	for i := range x.reads {
		t := x.text(i)
		all := true
		for _, w := range words {
			if !strings.Contains(t, strings.Trim(w, "()[],;:'\"")) {
				all = false
				break
			}
		}
		if all {
			return x.reads[i], true
		}
	}
	return Read{}, false
}

// mask is redact.Mask as normalize leaves it: the agent's report is
// redacted before it is read, the reads are not.
var mask = normalize(redact.Mask)

// containsMasked: text holds q, where each mask in q stands for whatever
// the redaction pass took out.
func containsMasked(text, q string) bool {
	if !strings.Contains(q, mask) {
		return strings.Contains(text, q)
	}
	at := 0
	for _, frag := range strings.Split(q, mask) {
		frag = strings.TrimSpace(frag)
		if frag == "" {
			continue
		}
		i := strings.Index(text[at:], frag)
		if i < 0 {
			return false
		}
		at += i + len(frag)
	}
	return true
}

var spaces = regexp.MustCompile(`\s+`)

func normalize(s string) string {
	return strings.ToLower(spaces.ReplaceAllString(strings.TrimSpace(s), " "))
}

// hasWord: name appears in text as a whole value (a list's body naming the
// object), not inside a longer name.
func hasWord(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		before, after := byte(' '), byte(' ')
		if j > 0 {
			before = text[j-1]
		}
		if k := j + len(name); k < len(text) {
			after = text[k]
		}
		if !nameChar(before) && !nameChar(after) {
			return true
		}
		i = j + 1
	}
}

func nameChar(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '.'
}

// commandWants is what reads a cited kubectl command needs, or why it is
// not a read that can be checked. Only the first call of a pipeline is a
// read: `kubectl logs x | grep y` read the log.
func commandWants(cmd, namespace string) ([]want, string) {
	cmds := kubectlcmd.Parse(cmd)
	if len(cmds) == 0 || !strings.HasPrefix(strings.TrimSpace(cmd), "kubectl ") {
		return nil, "not a kubectl command kubectl-triage can read"
	}
	c := cmds[0]
	w := want{namespace: namespace, anyNamespace: c.AllNamespaces, container: c.Container, previous: c.Previous}
	if c.Namespace != "" {
		w.namespace = c.Namespace
	}
	switch c.Verb {
	case "get", "describe":
		return objectWants(w, c)
	case "logs":
		if len(c.Args) == 0 {
			return nil, "a kubectl logs command without a pod"
		}
		w.resource, w.subresource = "pods", "log"
		if kind, name, ok := strings.Cut(c.Args[0], "/"); ok {
			if kubectlcmd.ResourceOf(kind) == "pods" {
				w.name = name
			} // a workload: kubectl picks one of its pods
		} else {
			w.name = c.Args[0]
		}
		if len(c.Args) > 1 && w.container == "" {
			w.container = c.Args[1]
		}
		return []want{w}, ""
	case "events":
		w.resource = "events"
		if c.For != "" {
			_, w.name, _ = strings.Cut(c.For, "/")
		}
		return []want{w}, ""
	case "top":
		return []want{{path: "/apis/metrics.k8s.io/"}}, ""
	case "auth":
		return []want{{resource: "selfsubjectaccessreviews", anyNamespace: true}}, ""
	case "explain":
		return []want{{path: "/openapi"}}, ""
	case "api-resources", "api-versions", "cluster-info":
		return []want{{path: "/api"}}, ""
	case "version":
		return []want{{path: "/version"}}, ""
	}
	return nil, "`kubectl " + c.Verb + "` is not a read: it cannot have produced evidence"
}

// objectWants: the objects a get or describe names.
func objectWants(base want, c kubectlcmd.Command) ([]want, string) {
	if len(c.Args) == 0 {
		return nil, "a kubectl get without a resource type"
	}
	var out []want
	for _, o := range c.Objects() {
		w := base
		w.resource, w.name = o.Resource, o.Name
		out = append(out, w)
	}
	if len(out) == 0 {
		return nil, "`kubectl get all` names no resource to check"
	}
	return out, ""
}

var clusterScoped = map[string]bool{
	"nodes": true, "namespaces": true, "persistentvolumes": true, "storageclasses": true, "clusterroles": true,
	"clusterrolebindings": true, "ingressclasses": true, "priorityclasses": true, "customresourcedefinitions": true,
}

func unique(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
