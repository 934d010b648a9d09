package redact

import (
	"bytes"
	"encoding/json"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// Event returns a copy of a fault event with every string field redacted
// (its message, fault type, the nested Kubernetes event's reason and
// message, log samples, and the raw bytes, see JSON), and how many values
// were masked. The event as received is left as it is: the pipeline still
// routes and deduplicates on what arrived, while everything written to disk,
// a prompt or a terminal comes from the copy.
func Event(ev *fault.Event) (*fault.Event, int) {
	if ev == nil {
		return nil, 0
	}
	var w walker
	out := *ev
	for _, p := range []*string{&out.SubscriptionID, &out.Cluster, &out.FaultID, &out.FaultType, &out.Severity, &out.Context, &out.Logger, &out.Level} {
		*p = w.text(*p)
	}
	if ev.Resource != nil {
		r := *ev.Resource
		redactResource(&w, &r)
		out.Resource = &r
	}
	if ev.Event != nil {
		k := *ev.Event
		redactK8sEvent(&w, &k)
		out.Event = &k
	}
	if ev.Logs != nil {
		out.Logs = make([]fault.LogSample, len(ev.Logs))
		for i, l := range ev.Logs {
			l.Container = w.text(l.Container)
			l.Sample = w.text(l.Sample)
			l.Error = w.text(l.Error)
			out.Logs[i] = l
		}
	}
	if ev.Raw != nil {
		raw, n := JSON(ev.Raw)
		out.Raw = raw
		// The raw bytes repeat the fields above; count each value once.
		if n > w.n {
			w.n = n
		}
	}
	return &out, w.n
}

func redactResource(w *walker, r *fault.Resource) {
	for _, p := range []*string{&r.APIVersion, &r.Kind, &r.Name, &r.Namespace, &r.UID} {
		*p = w.text(*p)
	}
}

// redactK8sEvent redacts the nested event's strings by walking its JSON
// form, so a field added to K8sEvent later is covered without a change here.
func redactK8sEvent(w *walker, k *fault.K8sEvent) {
	data, err := json.Marshal(k)
	if err != nil {
		return
	}
	red, n := JSON(data)
	if n == 0 {
		return
	}
	var out fault.K8sEvent
	if json.Unmarshal(red, &out) == nil {
		*k = out
		w.n += n
	}
}

// JSON redacts a JSON document: every string, by the rules of Object (a
// value under a sensitive key is masked whole, any other string goes
// through Text). The result is indented; a document that does not parse is
// redacted as text.
func JSON(data []byte) ([]byte, int) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		out, n := Text(string(data))
		return []byte(out), n
	}
	var w walker
	if m, ok := v.(map[string]any); ok {
		w.object(m, "")
	} else {
		v = w.value("", v)
	}
	if w.n == 0 {
		return data, 0
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		out, n := Text(string(data))
		return []byte(out), n
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), w.n
}
