package fault

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParse: Parse never panics, and whatever it accepts names a resource
// (kind and name), has an EventID, a severity and its raw bytes.
//
//	go test ./pkg/fault -run '^$' -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	for _, line := range fixtureLines(f) {
		f.Add(line)
		var fr struct {
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &fr) == nil {
			f.Add([]byte(fr.Params))
			var p struct {
				Data json.RawMessage `json:"data"`
			}
			if json.Unmarshal(fr.Params, &p) == nil {
				f.Add([]byte(p.Data))
			}
		}
	}
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `"x"`, `{"resource":{}}`, `{"event":{}}`,
		`{"logger":"kubernetes/faults","level":"warning","data":"{\"resource\":{\"kind\":\"Pod\",\"name\":\"p\"}}"}`,
		`{"resource":{"kind":" ","name":"p"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		ev, se, err := ParseNotification(data)
		n := 0
		for _, set := range []bool{ev != nil, se != nil, err != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("want exactly one of event, subscription error, error; got %v, %v, %v", ev, se, err)
		}
		if !bytes.Equal(data, orig) {
			t.Fatal("input modified")
		}
		if err != nil && err.Error() == "" {
			t.Fatal("empty error message")
		}
		if ev == nil {
			return
		}
		if ev.ResourceKind() == "" || ev.ResourceName() == "" {
			t.Fatalf("accepted an event without resource kind+name: %q", data)
		}
		if ev.EventID == "" || ev.Severity == "" || len(ev.Raw) == 0 || ev.Shape == "" {
			t.Fatalf("incomplete event %+v from %q", ev, data)
		}
		if !json.Valid(ev.Raw) {
			t.Fatalf("raw is not JSON: %q", ev.Raw)
		}
		// Parse agrees with ParseNotification.
		ev2, err := Parse(data)
		if err != nil || ev2.ResourceName() != ev.ResourceName() || ev2.FaultType != ev.FaultType || ev2.Severity != ev.Severity {
			t.Fatalf("Parse disagrees: %v %+v", err, ev2)
		}
	})
}
