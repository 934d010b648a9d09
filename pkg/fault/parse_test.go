package fault

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// fixtureLines are the notification frames of testdata/mcp-notifications.jsonl
// (a copy of the shared wire samples of kubernetes-mcp-server).
func fixtureLines(tb testing.TB) [][]byte {
	tb.Helper()
	f, err := os.Open("testdata/mcp-notifications.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
			lines = append(lines, bytes.Clone(l))
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return lines
}

// frameParts splits a frame into its logger, level and the verbatim bytes of
// its data.
func frameParts(tb testing.TB, line []byte) (logger, level string, data []byte) {
	tb.Helper()
	var f struct {
		Params struct {
			Logger string          `json:"logger"`
			Level  string          `json:"level"`
			Data   json.RawMessage `json:"data"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &f); err != nil {
		tb.Fatal(err)
	}
	return f.Params.Logger, f.Params.Level, f.Params.Data
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

type want struct {
	shape, cluster, sub, faultID, faultType, severity string
	kind, name, namespace, uid, apiVersion            string
	context                                           string
	at                                                time.Time
	reason, evType                                    string
	logs                                              int
}

func TestParseFixtures(t *testing.T) {
	lines := fixtureLines(t)
	if len(lines) != 6 {
		t.Fatalf("want 6 fixture lines, got %d", len(lines))
	}
	wants := []want{
		{shape: ShapeFlat, cluster: "local", sub: "sub-e601dd09", faultID: "ed383e7e58277b70", faultType: TypePodCrash, severity: "warning",
			kind: "Pod", name: "crashy", namespace: "seeds-probe", uid: "3b2681be-da83-47ae-ba60-8d84463c4799", apiVersion: "v1",
			context: "Container crashed with exit code 1, reason: Error, message: boom", at: ts("2026-11-21T15:46:25Z")},
		{shape: ShapeFlat, cluster: "local", sub: "sub-e601dd09", faultID: "caf0a0f2b123ea27", faultType: TypeCrashLoop, severity: "critical",
			kind: "Pod", name: "crashy", namespace: "seeds-probe", uid: "3b2681be-da83-47ae-ba60-8d84463c4799", apiVersion: "v1",
			context: "Container entered CrashLoopBackOff state, restart count: 1, waiting message: back-off 10s restarting failed container=crashy, last exit code: 1, last reason: Error",
			at:      ts("2026-11-21T15:46:27Z")},
		// events mode: sent at level info, but a Warning event is a warning.
		{shape: ShapeNested, cluster: "local", sub: "sub-7e4fdc7a", faultType: TypeCrashLoop, severity: "critical",
			kind: "Pod", name: "crashy", namespace: "seeds-probe", uid: "3b2681be-da83-47ae-ba60-8d84463c4799", apiVersion: "v1",
			context: "BackOff: Back-off restarting failed container crashy", at: ts("2026-11-21T15:46:23Z"), reason: "BackOff", evType: "Warning"},
		// older nested faults shape with logs and no timestamp besides the event's.
		{shape: ShapeNested, cluster: "prod-east", sub: "sub-1a2b3c4d", faultType: TypeCrashLoop, severity: "critical",
			kind: "Pod", name: "checkout-7d9f6c5b8-x2kq9", namespace: "shop", uid: "6f1c2d3e-0000-4000-8000-00000000a001", apiVersion: "v1",
			context: "BackOff: Back-off restarting failed container api in pod checkout-7d9f6c5b8-x2kq9_shop", at: ts("2026-11-21T15:40:02Z"),
			reason: "BackOff", evType: "Warning", logs: 1},
		{shape: ShapeFlatLegacy, cluster: "prod-east", sub: "sub-5e6f7a8b", faultType: TypeOOMKilled, severity: "critical",
			kind: "Pod", name: "worker-64b8f-hs9k4", namespace: "batch", uid: "6f1c2d3e-0000-4000-8000-00000000a002", apiVersion: "v1",
			context: "Container worker terminated: OOMKilled, exit code 137, memory limit 256Mi", at: ts("2026-11-21T15:41:10Z")},
	}
	for i, w := range wants {
		line := lines[i]
		logger, level, data := frameParts(t, line)
		params := []byte(`{"logger":` + quote(logger) + `,"level":` + quote(level) + `,"data":` + string(data) + `}`)
		forms := []struct {
			name          string
			in            []byte
			logger, level string
		}{
			{"frame", line, logger, level},
			{"params", params, logger, level},
			{"bare", data, "", ""},
		}
		for _, f := range forms {
			t.Run(logger+"/"+f.name, func(t *testing.T) {
				ev, err := Parse(f.in)
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				checkEvent(t, ev, w)
				if ev.Logger != f.logger || ev.Level != f.level {
					t.Errorf("logger, level = %q, %q, want %q, %q", ev.Logger, ev.Level, f.logger, f.level)
				}
				if !bytes.Equal(ev.Raw, data) {
					t.Errorf("Raw is not the event object verbatim:\n got %s\nwant %s", ev.Raw, data)
				}
				if _, err := uuid.Parse(ev.EventID); err != nil {
					t.Errorf("EventID %q: %v", ev.EventID, err)
				}
			})
		}
	}
}

func checkEvent(t *testing.T, ev *Event, w want) {
	t.Helper()
	got := want{
		shape: ev.Shape, cluster: ev.Cluster, sub: ev.SubscriptionID, faultID: ev.FaultID, faultType: ev.FaultType, severity: ev.Severity,
		kind: ev.ResourceKind(), name: ev.ResourceName(), namespace: ev.Namespace(), uid: ev.Resource.UID, apiVersion: ev.Resource.APIVersion,
		context: ev.Context, at: ev.Timestamp, logs: len(ev.Logs),
	}
	if ev.Event != nil {
		got.reason, got.evType = ev.Event.Reason, ev.Event.Type
	}
	if !got.at.Equal(w.at) {
		t.Errorf("timestamp %v, want %v", got.at, w.at)
	}
	got.at = w.at
	if got != w {
		t.Errorf("parsed\n got %+v\nwant %+v", got, w)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestParseNestedDetails(t *testing.T) {
	lines := fixtureLines(t)
	ev, err := Parse(lines[3])
	if err != nil {
		t.Fatal(err)
	}
	k := ev.Event
	if k == nil || k.Count != 7 || k.Labels["app"] != "checkout" || k.Namespace != "shop" || k.InvolvedObject.Kind != "Pod" {
		t.Fatalf("event not kept: %+v", k)
	}
	if len(ev.Logs) != 1 || ev.Logs[0].Container != "api" || !ev.Logs[0].Previous || ev.Logs[0].HasPanic ||
		!strings.Contains(ev.Logs[0].Sample, "DATABASE_URL is empty") {
		t.Fatalf("logs not kept: %+v", ev.Logs)
	}
	ev, err = Parse(lines[2])
	if err != nil {
		t.Fatal(err)
	}
	if k := ev.Event; k.Count != 3 || !k.FirstTimestamp.Equal(ts("2026-11-21T15:46:23Z")) || !k.LastTimestamp.Equal(ts("2026-11-21T15:46:23Z")) {
		t.Fatalf("events-mode event: %+v", k)
	}
}

func TestParseSubscriptionError(t *testing.T) {
	line := fixtureLines(t)[5]
	_, level, data := frameParts(t, line)
	for name, in := range map[string][]byte{"frame": line, "bare": data} {
		t.Run(name, func(t *testing.T) {
			ev, se, err := ParseNotification(in)
			if err != nil || ev != nil || se == nil {
				t.Fatalf("ParseNotification = %v, %v, %v; want a subscription error", ev, se, err)
			}
			if se.SubscriptionID != "sub-e601dd09" || se.Cluster != "local" || se.Message != "watch closed: too old resource version" || !se.Degraded {
				t.Errorf("subscription error %+v", se)
			}
			if name == "frame" && se.Level != level {
				t.Errorf("level %q", se.Level)
			}
			if !bytes.Equal(se.Raw, data) {
				t.Errorf("raw %s", se.Raw)
			}
			// Parse reports it as a distinct error.
			_, err = Parse(in)
			var got *SubscriptionError
			if !errors.As(err, &got) || got.Message != se.Message {
				t.Fatalf("Parse error %v, want a *SubscriptionError", err)
			}
			if want := "subscription sub-e601dd09 (cluster local) failed: watch closed: too old resource version (degraded)"; err.Error() != want {
				t.Errorf("message %q, want %q", err, want)
			}
		})
	}
}

// The same fault in every wire shape answers the same through the helpers.
func TestParseShapesAgree(t *testing.T) {
	shapes := map[string]string{
		"flat":        `{"cluster":"c","faultId":"f1","faultType":"CrashLoop","severity":"critical","resource":{"apiVersion":"v1","kind":"Pod","name":"api","namespace":"shop"},"context":"x","timestamp":"2026-01-02T03:04:05Z"}`,
		"flat-legacy": `{"cluster":"c","faultType":"CrashLoop","severity":"critical","resource":{"kind":"Pod","name":"api","namespace":"shop"},"timestamp":"2026-01-02T03:04:05Z"}`,
		"nested":      `{"jsonrpc":"2.0","method":"notifications/message","params":{"logger":"kubernetes/faults","level":"warning","data":{"cluster":"c","event":{"namespace":"shop","timestamp":"2026-01-02T03:04:05Z","type":"Warning","reason":"BackOff","message":"Back-off restarting failed container api","involvedObject":{"kind":"Pod","name":"api","namespace":"shop"}},"logs":[]}}}`,
		"events":      `{"logger":"kubernetes/events","level":"info","data":{"cluster":"c","event":{"namespace":"shop","lastTimestamp":"2026-01-02T03:04:05Z","type":"Warning","reason":"BackOff","message":"m","involvedObject":{"kind":"Pod","name":"api"}}}}`,
	}
	for name, in := range shapes {
		ev, err := Parse([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := [6]string{ev.Cluster, ev.ResourceKind(), ev.ResourceName(), ev.Namespace(), ev.FaultType, ev.Severity}
		if want := [6]string{"c", "Pod", "api", "shop", TypeCrashLoop, SeverityCritical}; got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
		if !ev.Timestamp.Equal(ts("2026-01-02T03:04:05Z")) {
			t.Errorf("%s: timestamp %v", name, ev.Timestamp)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, in string
		is       error
		msg      string
	}{
		{"empty", ``, ErrInvalidJSON, "fault event is not valid JSON: unexpected end of JSON input"},
		{"truncated", `{"resource":{"kind":"Pod"`, ErrInvalidJSON, "fault event is not valid JSON: "},
		{"garbage", `resource: pod/x`, ErrInvalidJSON, "fault event is not valid JSON: invalid character"},
		{"array", `[{"resource":{}}]`, ErrMalformed, "got a JSON array, want an object"},
		{"string", `"pod/x"`, ErrMalformed, "got a JSON string, want an object"},
		{"null", `null`, ErrMalformed, "got null, want an object"},
		{"no resource", `{"faultType":"CrashLoop","severity":"critical"}`, ErrNoResource,
			"fault event has no resource: want resource{kind,name} or event.involvedObject"},
		{"resource without name", `{"resource":{"kind":"Pod","namespace":"x"}}`, ErrNoResource, "(name is empty)"},
		{"resource without kind", `{"resource":{"name":"x"}}`, ErrNoResource, "(kind is empty)"},
		{"event without involvedObject", `{"event":{"reason":"BackOff","type":"Warning"}}`, ErrNoResource, "fault event has no resource"},
		{"resource of wrong type", `{"resource":"pod/x"}`, ErrMalformed, "field resource is a JSON string, want an object"},
		{"name of wrong type", `{"resource":{"kind":"Pod","name":7}}`, ErrMalformed, "field resource.name is a JSON number, want a string"},
		{"count of wrong type", `{"event":{"count":"7","involvedObject":{"kind":"Pod","name":"x"}}}`, ErrMalformed, "field event.count is a JSON string, want a number"},
		{"unknown logger", `{"jsonrpc":"2.0","method":"notifications/message","params":{"logger":"kubernetes/other","level":"warning","data":{"resource":{"kind":"Pod","name":"x"}}}}`,
			ErrUnknownLogger, `unknown notification logger "kubernetes/other": want kubernetes/faults,`},
		{"unknown logger params", `{"logger":"app","level":"info","data":"hello"}`, ErrUnknownLogger, `"app"`},
		{"rpc response", `{"jsonrpc":"2.0","id":3,"result":{}}`, ErrNotFault, `JSON-RPC method "<none>", want notifications/message`},
		{"other method", `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, ErrNotFault, `"notifications/progress"`},
		{"frame without params", `{"jsonrpc":"2.0","method":"notifications/message"}`, ErrMalformed, "frame has no params"},
		{"frame with null data", `{"jsonrpc":"2.0","method":"notifications/message","params":{"logger":"kubernetes/faults","data":null}}`, ErrMalformed, "notification has no data"},
		{"frame with bad data", `{"jsonrpc":"2.0","method":"notifications/message","params":{"logger":"kubernetes/faults","data":{"faultType":"X"}}}`, ErrNoResource, "no resource"},
		{"data string not json", `{"logger":"kubernetes/faults","level":"warning","data":"boom"}`, ErrInvalidJSON, "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := Parse([]byte(c.in))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", ev)
			}
			if ev != nil {
				t.Errorf("event with error: %+v", ev)
			}
			if !errors.Is(err, c.is) {
				t.Errorf("error %q is not %q", err, c.is)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not say %q", err, c.msg)
			}
		})
	}
}

func TestParseLenient(t *testing.T) {
	// Unknown fields are kept in Raw; a bad timestamp does not reject the fault.
	in := `{"resource":{"kind":"Node","name":"n1"},"faultType":"NodeUnhealthy","timestamp":"yesterday","extra":{"a":[1,2]}}`
	ev, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(ev.Raw) != in || !ev.Timestamp.IsZero() || ev.Severity != SeverityCritical || ev.Namespace() != "" {
		t.Errorf("got %+v", ev)
	}
	// data sent as a JSON-encoded string.
	ev, err = Parse([]byte(`{"logger":"kubernetes/faults","level":"warning","data":` + quote(in) + `}`))
	if err != nil || string(ev.Raw) != in || ev.ResourceKind() != "Node" {
		t.Fatalf("string data: %v %+v", err, ev)
	}
	// Cluster-scoped involved object: the event's namespace ("default") is not its own.
	ev, err = Parse([]byte(`{"event":{"namespace":"default","type":"Warning","reason":"NodeNotReady","involvedObject":{"kind":"Node","name":"n1"}}}`))
	if err != nil || ev.Namespace() != "" || ev.FaultType != TypeNodeUnhealthy {
		t.Fatalf("node event: %v %+v", err, ev)
	}
	// An incomplete flat resource gives way to a complete involvedObject.
	ev, err = Parse([]byte(`{"resource":{},"event":{"reason":"FailedScheduling","involvedObject":{"kind":"Pod","name":"p","namespace":"ns"}}}`))
	if err != nil || ev.ResourceName() != "p" || ev.Shape != ShapeNested || ev.FaultType != TypeUnschedulable {
		t.Fatalf("incomplete resource: %v %+v", err, ev)
	}
	// The explicit severity and fault type win over derived ones.
	ev, err = Parse([]byte(`{"logger":"kubernetes/faults","level":"warning","data":{"faultType":"Custom","severity":"critical","event":{"type":"Normal","reason":"BackOff","involvedObject":{"kind":"Pod","name":"p"}}}}`))
	if err != nil || ev.Severity != "critical" || ev.FaultType != "Custom" {
		t.Fatalf("explicit: %v %+v", err, ev)
	}
	// Each parse gets its own EventID and its own Raw.
	buf := []byte(in)
	a, _ := Parse(buf)
	b, _ := Parse(buf)
	buf[0] = 'X'
	if a.EventID == b.EventID || a.Raw[0] != '{' {
		t.Errorf("EventIDs %s %s, raw %s", a.EventID, b.EventID, a.Raw)
	}
}

// What an MCP go-sdk LoggingMessageHandler hands over: logger, level and
// Params.Data as a map, re-marshalled.
func TestParseMessage(t *testing.T) {
	line := fixtureLines(t)[0]
	logger, level, data := frameParts(t, line)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	re, _ := json.Marshal(m)
	ev, se, err := ParseMessage(logger, level, re)
	if err != nil || se != nil || ev.FaultType != TypePodCrash || ev.Logger != LoggerFaults || ev.Level != "warning" || string(ev.Raw) != string(re) {
		t.Fatalf("ParseMessage: %v %v %+v", err, se, ev)
	}
	if _, _, err := ParseMessage("kubernetes/nope", "info", re); !errors.Is(err, ErrUnknownLogger) {
		t.Fatalf("unknown logger: %v", err)
	}
}

func TestDeriveSeverity(t *testing.T) {
	cases := []struct {
		level, evType, want string
	}{
		{"", "", SeverityWarning},
		{"", "Warning", SeverityWarning},
		{"", "Normal", SeverityInfo},
		{"info", "Warning", SeverityWarning}, // events mode
		{"info", "Normal", SeverityInfo},
		{"ERROR", "Warning", "error"},
		{"critical", "", SeverityCritical},
		{"notice", "", "notice"},
		{"bogus", "Normal", SeverityInfo},
		{"bogus", "", SeverityWarning},
	}
	for _, c := range cases {
		var k *K8sEvent
		if c.evType != "" {
			k = &K8sEvent{Type: c.evType}
		}
		if got := deriveSeverity(c.level, k); got != c.want {
			t.Errorf("deriveSeverity(%q, %q) = %q, want %q", c.level, c.evType, got, c.want)
		}
	}
}

func TestSeverityRank(t *testing.T) {
	order := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	for i := 1; i < len(order); i++ {
		if SeverityRank(order[i-1]) >= SeverityRank(order[i]) {
			t.Errorf("%s does not rank below %s", order[i-1], order[i])
		}
	}
	same := map[string]string{"WARNING": "warning", "warn": "warning", " Info ": "info", "err": "error", "crit": "critical", "emerg": "emergency"}
	for in, canon := range same {
		if SeverityRank(in) != SeverityRank(canon) {
			t.Errorf("SeverityRank(%q) = %d, want %d", in, SeverityRank(in), SeverityRank(canon))
		}
	}
	// The faults vocabulary sits on the same scale.
	if !(SeverityRank(SeverityInfo) < SeverityRank(SeverityWarning) && SeverityRank(SeverityWarning) < SeverityRank("error") &&
		SeverityRank("error") < SeverityRank(SeverityCritical)) {
		t.Error("faults severities out of order")
	}
	for _, s := range []string{"", "bogus", "high"} {
		if SeverityRank(s) != -1 {
			t.Errorf("SeverityRank(%q) = %d, want -1", s, SeverityRank(s))
		}
	}
}

func TestReasonFaultType(t *testing.T) {
	cases := []struct{ reason, msg, kind, want string }{
		{"BackOff", "Back-off restarting failed container api in pod x", "Pod", TypeCrashLoop},
		{"BackOff", `Back-off pulling image "nginx:nope"`, "Pod", TypeImagePull},
		{"CrashLoopBackOff", "", "Pod", TypeCrashLoop},
		{"Failed", `Failed to pull image "x": not found`, "Pod", TypeImagePull},
		{"Failed", "Error: ErrImagePull", "Pod", TypeImagePull},
		{"Failed", "Error: ImagePullBackOff", "Pod", TypeImagePull},
		{"Failed", `Error: configmap "cfg" not found`, "Pod", TypeConfigError},
		{"Failed", "something else", "Pod", "Failed"},
		{"ErrImagePull", "", "Pod", TypeImagePull},
		{"FailedScheduling", "0/3 nodes are available", "Pod", TypeUnschedulable},
		{"OOMKilling", "Memory cgroup out of memory", "Node", TypeOOMKilled},
		{"OOMKilled", "", "Pod", TypeOOMKilled},
		{"Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", "Pod", TypeProbeFailure},
		{"NodeNotReady", "Node n1 status is now: NodeNotReady", "Node", TypeNodeUnhealthy},
		{"BackoffLimitExceeded", "Job has reached the specified backoff limit", "Job", TypeJobFailure},
		{"ProgressDeadlineExceeded", "", "Deployment", TypeDeploymentFailure},
		{"FailedMount", "MountVolume.SetUp failed", "Pod", "FailedMount"},
		{"", "", "Pod", ""},
	}
	for _, c := range cases {
		if got := ReasonFaultType(c.reason, c.msg, c.kind); got != c.want {
			t.Errorf("ReasonFaultType(%q, %q, %q) = %q, want %q", c.reason, c.msg, c.kind, got, c.want)
		}
	}
}

// A synthesised event keeps today's flat JSON and parses back to itself.
func TestSynthesizeParses(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ev, err := Synthesize("prod", Resource{APIVersion: "v1", Kind: "Pod", Name: "api", Namespace: "shop", UID: "u1"}, TypeCrashLoop, SeverityCritical, "restarting", at)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"event"`, `"logs"`, `"eventId"`, `"Logger"`, `"shape"`} {
		if bytes.Contains(ev.Raw, []byte(k)) {
			t.Errorf("synthesised JSON has %s:\n%s", k, ev.Raw)
		}
	}
	got, err := Parse(ev.Raw)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cluster != "prod" || got.FaultID != ev.FaultID || got.FaultType != TypeCrashLoop || got.Severity != SeverityCritical ||
		*got.Resource != *ev.Resource || got.Context != "restarting" || !got.Timestamp.Equal(at) || got.Shape != ShapeFlat {
		t.Errorf("round trip: %+v", got)
	}
	if got.EventID == ev.EventID {
		t.Error("a received event must get its own EventID")
	}
}

// Helpers work on a hand-built nested event that never went through Parse.
func TestHelpersWithoutResource(t *testing.T) {
	ev := &Event{Event: &K8sEvent{Namespace: "shop", InvolvedObject: ObjectReference{Kind: "Pod", Name: "api"}}}
	if ev.ResourceKind() != "Pod" || ev.ResourceName() != "api" || ev.Namespace() != "shop" {
		t.Errorf("helpers: %q %q %q", ev.ResourceKind(), ev.ResourceName(), ev.Namespace())
	}
	var empty Event
	if empty.ResourceKind() != "" || empty.ResourceName() != "" || empty.Namespace() != "" {
		t.Error("empty event")
	}
}

func BenchmarkParse(b *testing.B) {
	lines := fixtureLines(b)
	for _, c := range []struct {
		name string
		in   []byte
	}{{"flat-frame", lines[1]}, {"nested-frame", lines[3]}, {"flat-bare", func() []byte { _, _, d := frameParts(b, lines[1]); return d }()}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(c.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
