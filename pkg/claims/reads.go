package claims

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/kubectlcmd"
)

// FromGateway is one request the gateway served the agent, as a Read.
// body is the response (bounded by the gateway), JSON or text.
func FromGateway(method, path, rawQuery, resource, subresource, namespace, name string, body []byte) Read {
	q, _ := url.ParseQuery(rawQuery)
	where := method + " " + path
	if rawQuery != "" {
		where += "?" + rawQuery
	}
	r := Read{Origin: Gateway, Where: where + " (output/audit.jsonl)", Resource: resource, Subresource: subresource, Path: path,
		Namespace: namespace, Name: name, Container: q.Get("container"), Text: Flatten(body)}
	r.Previous, _ = strconv.ParseBool(q.Get("previous"))
	return r
}

// FromBundle lists what the context files hand the agent: each object of
// context/resources, the events of events.json and each log of logs.txt.
func FromBundle(b *bundle.Bundle) []Read {
	var out []Read
	for _, o := range b.Objects() {
		data, err := json.Marshal(o.Obj)
		if err != nil {
			continue
		}
		out = append(out, Read{Origin: Context, Where: "context/" + o.File, Resource: kubectlcmd.ResourceOf(o.Kind),
			Namespace: o.Namespace, Name: o.Name, Text: Flatten(data)})
	}
	if len(b.Events) > 0 {
		data, _ := json.Marshal(b.Events)
		ns := b.Target.Namespace
		out = append(out, Read{Origin: Context, Where: "context/" + bundle.EventsFile, Resource: "events", Namespace: ns, Text: Flatten(data)})
		// Events of other namespaces (a node's) back claims there too.
		seen := map[string]bool{ns: true}
		for _, e := range b.Events {
			if !seen[e.Namespace] {
				seen[e.Namespace] = true
				out = append(out, Read{Origin: Context, Where: "context/" + bundle.EventsFile, Resource: "events", Namespace: e.Namespace, Text: Flatten(data)})
			}
		}
	}
	for _, l := range b.Logs {
		if l.Error != "" || l.Text == "" {
			continue
		}
		out = append(out, Read{Origin: Context, Where: fmt.Sprintf("context/%s (pod/%s %s, %s)", bundle.LogsFile, l.Pod, l.Container, instance(l.Previous)),
			Resource: "pods", Subresource: "log", Namespace: l.Namespace, Name: l.Pod, Container: l.Container, Previous: l.Previous, Text: l.Text})
	}
	return out
}

func instance(previous bool) string {
	if previous {
		return "previous"
	}
	return "current"
}

// Flatten makes a response body searchable: a JSON document becomes its
// keys and scalar values, one per line (a Table's cells, an object's
// fields, a ConfigMap's keys), so a quoted value is found whatever the
// escaping; anything else (a log) stays as it is.
func Flatten(body []byte) string {
	trimmed := strings.TrimSpace(string(body))
	if !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "[") {
		return string(body)
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return string(body)
	}
	var b strings.Builder
	flatten(&b, v)
	return b.String()
}

func flatten(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString(k)
			b.WriteByte('\n')
			flatten(b, x[k])
		}
	case []any:
		for _, e := range x {
			flatten(b, e)
		}
	case nil:
	default:
		fmt.Fprint(b, x)
		b.WriteByte('\n')
	}
}
