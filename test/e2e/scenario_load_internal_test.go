package e2e

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// TestLoadTransforms: what loadScenario does to captured objects and what
// checkGolden masks, on their own.
func TestLoadTransforms(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{"ownerReferences": []any{map[string]any{"uid": "11111111-2222-3333-4444-555555555555"}},
			"labels": map[string]any{"controller-uid": "11111111-2222-3333-4444-555555555555"}, "annotations": map[string]any{"restartedAt": "2026-11-26T09:58:41Z"}},
		"status": map[string]any{"startTime": "2026-11-26T09:28:41Z", "message": "since 2026-11-26T09:28:41Z ok", "restartCount": int64(3)},
	}
	got := shiftTimes(renameUIDs(obj, map[types.UID]types.UID{"11111111-2222-3333-4444-555555555555": "new-uid"}), 90*time.Minute).(map[string]any)
	want := map[string]any{
		"metadata": map[string]any{"ownerReferences": []any{map[string]any{"uid": "new-uid"}},
			"labels": map[string]any{"controller-uid": "new-uid"}, "annotations": map[string]any{"restartedAt": "2026-11-26T11:28:41Z"}},
		"status": map[string]any{"startTime": "2026-11-26T10:58:41Z", "message": "since 2026-11-26T09:28:41Z ok", "restartCount": int64(3)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shift and rename:\n got %v\nwant %v", got, want)
	}

	if got := untimestamped("2026-11-26T09:58:41.055811325Z starting\n2026-11-26T09:58:41Z FATAL x\nplain 2026-11-26T09:58:41Z\n"); got != "starting\nFATAL x\nplain 2026-11-26T09:58:41Z\n" {
		t.Errorf("untimestamped: %q", got)
	}

	for in, want := range map[string]string{
		"rolled out at 2026-11-26 09:58:34 UTC (0s ago)":  "rolled out at <time> (<time>)",
		"no status since 09:44:44Z (Ready=Unknown)":       "no status since <time> (Ready=Unknown)",
		"stopped posting status 14m ago; deadline (600s)": "stopped posting status 14m ago; deadline (600s)",
		"at 2026-11-26T09:57:41Z, exit code 1":            "at <time>, exit code 1",
	} {
		if got := maskClock(in); got != want {
			t.Errorf("maskClock(%q) = %q, want %q", in, got, want)
		}
	}

	for _, c := range []struct {
		a, b  string
		equal bool
	}{
		{"started 20m1s ago and has not exited", "started 20m2s ago and has not exited", true},
		{"running for 20m59s", "running for 21m0s", true},
		{"scheduled 3h ago", "scheduled 4h ago", true},
		{"running for 20m1s", "running for 25m1s", false},
		{"running for 20m1s", "running for 20m1s, then", false},
		{"exit code 1 after 2s", "exit code 2 after 2s", false},
		{maskClock(`178 run(s) of schedule "* * * * *" were missed`), maskClock(`179 run(s) of schedule "* * * * *" were missed`), true},
		{maskClock("the last 3 run(s) failed"), maskClock("the last 4 run(s) failed"), false},
	} {
		if got := clockEqual(c.a, c.b); got != c.equal {
			t.Errorf("clockEqual(%q, %q) = %v, want %v", c.a, c.b, got, c.equal)
		}
	}

	if !inServiceRange("10.0.12.7") || inServiceRange("10.96.0.10") || inServiceRange("None") {
		t.Errorf("inServiceRange: only %s holds a kept cluster IP", "10.0.0.0/16")
	}
	if got := reassign("dial tcp 10.0.1.2:6379 and 10.0.1.23:6379", map[string]string{"10.0.1.2": "10.0.9.9"}); got != "dial tcp 10.0.9.9:6379 and 10.0.1.23:6379" {
		t.Errorf("reassign: %q", got)
	}
}
