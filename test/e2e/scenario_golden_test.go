package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/internal/golden"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/test/scenarios"
)

// A live run's report is compared with its scenario's golden one with the
// clock taken out: what the load cannot make equal (absolute times, ages,
// counts of schedules since a time) is masked or compared within slack.

// clockTimes are the absolute times a report prints, ages in seconds, and
// the Unix times a taint carries as its value (the cluster-autoscaler's
// ToBeDeletedByClusterAutoscaler=1796263320:NoSchedule).
var clockTimes = regexp.MustCompile(`\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?( UTC|Z)?|\b\d\d:\d\d:\d\dZ?\b|\b\d+s ago\b|=1\d{9}:`)

// maskClock hides what differs between a live run and its capture however
// faithfully the state is loaded: absolute times (the live run happens
// later; the load shifts every stored time by that much, but a
// creationTimestamp or deletionTimestamp is the API server's own) and ages
// in seconds (what derives from those). Longer ages are compared by
// clockEqual, within what the load can move them.
func maskClock(s string) string {
	return scheduleCounts.ReplaceAllString(clockTimes.ReplaceAllString(s, "<time>"), "<n> $1")
}

// scheduleCounts count a CronJob's schedules missed or skipped since a
// time: how many fall in the span depends on where the shifted span sits
// against the wall clock's minutes, not on the evidence. A count of runs
// that happened (the last 3 run(s) failed) is compared.
var scheduleCounts = regexp.MustCompile(`\b\d+ (schedule\(s\) skipped|scheduled run\(s\)|run\(s\) of schedule|run\(s\) since)`)

// ages are durations as reports print them (20m1s, 3h, 2h5m, 377ms).
var ages = regexp.MustCompile(`\b(\d+(\.\d+)?(ms|h|m|s))+\b`)

// ageSlack is how far the time between loading a scenario and triaging it
// (and the crossing of a second or a minute on the way) may move an age.
const ageSlack = 5 * time.Second

// clockEqual reports whether the masked texts are the same but for ages
// that differ by at most ageSlack plus the precision they are printed with
// (3h may print as 4h a moment later). An age that differs by more, or
// any other difference, is a difference.
func clockEqual(a, b string) bool {
	if a == b {
		return true
	}
	if ages.ReplaceAllString(a, "<age>") != ages.ReplaceAllString(b, "<age>") {
		return false
	}
	as, bs := ages.FindAllString(a, -1), ages.FindAllString(b, -1)
	for i := range as {
		da, errA := time.ParseDuration(as[i])
		db, errB := time.ParseDuration(bs[i])
		if errA != nil || errB != nil {
			if as[i] != bs[i] {
				return false
			}
			continue
		}
		if (da - db).Abs() > ageSlack+max(precision(as[i]), precision(bs[i])) {
			return false
		}
	}
	return true
}

// precision is the unit of an age's last field: 3h is to the hour, 3h5m to
// the minute.
func precision(age string) time.Duration {
	switch {
	case strings.HasSuffix(age, "ms"):
		return time.Millisecond
	case strings.HasSuffix(age, "h"):
		return time.Hour
	case strings.HasSuffix(age, "m"):
		return time.Minute
	}
	return time.Second
}

// checkGolden compares the live report with the scenario's golden one: the
// Root cause section, with the clock masked (maskClock) and ages compared within
// the load's slack (clockEqual).
func checkGolden(t *testing.T, s scenarios.Scenario, live string) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join(s.Dir, scenarios.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if back, ok := reassigned.Load(s.Meta.Namespace); ok {
		live = reassign(live, back.(map[string]string))
	}
	got, exp := maskClock(report.Sections(live)["root cause"]), maskClock(report.Sections(string(want))["root cause"])
	if !clockEqual(got, exp) {
		t.Errorf("the live Root cause differs from %s:\n%s", filepath.Join(s.Dir, scenarios.ReportFile), golden.Diff(s.Name+"/"+scenarios.ReportFile, exp+"\n", got+"\n"))
		t.Logf("the whole reports, clock masked:\n%s", golden.Diff(s.Name+"/"+scenarios.ReportFile, maskClock(string(want)), maskClock(live)))
	}
}
