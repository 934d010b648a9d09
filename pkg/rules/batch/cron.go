package batch

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// cronEvidence is the CronJob's schedule and status, shared by the
// CronJob rules.
func cronEvidence(c *rule.Pass, cj *batchv1.CronJob) string {
	return c.Evidence(
		fmt.Sprintf("CronJob %s: schedule %q%s, suspend %v, concurrencyPolicy %s, last scheduled %s, last successful %s, %d active job(s)", cj.Name, cj.Spec.Schedule, tzText(cj.Spec.TimeZone),
			cj.Spec.Suspend != nil && *cj.Spec.Suspend, orDefaultConcurrency(cj.Spec.ConcurrencyPolicy), kube.StampPtr(cj.Status.LastScheduleTime), kube.StampPtr(cj.Status.LastSuccessfulTime), len(cj.Status.Active)),
		fmt.Sprintf("cronjob/%s .spec/.status", cj.Name), fmt.Sprintf("kubectl get cronjob %s -n %s -o wide", cj.Name, cj.Namespace))
}

func tzText(tz *string) string {
	if tz == nil || *tz == "" {
		return ""
	}
	return " in " + *tz
}

func orDefaultConcurrency(p batchv1.ConcurrencyPolicy) string {
	if p == "" {
		return string(batchv1.AllowConcurrent)
	}
	return string(p)
}

// JobsOf are the CronJob's Jobs in the bundle, newest first.
func JobsOf(c *rule.Pass, cj *batchv1.CronJob) []*batchv1.Job {
	var out []*batchv1.Job
	for _, j := range c.B.Jobs {
		if kube.ControllerUID(j.OwnerReferences) == cj.UID {
			out = append(out, j)
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return bundle.RunTime(out[i]).After(bundle.RunTime(out[k])) })
	return out
}

// cronSchedule is a parsed five-field cron expression, the dialect the
// CronJob controller accepts (robfig/cron's standard parser).
type cronSchedule struct {
	minute, hour, dom, month, dow uint64
	domStar, dowStar              bool
	loc                           *time.Location
}

var cronMacros = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

var cronNames = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
	"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6,
}

func ParseCron(expr string, tz *string) (*cronSchedule, error) {
	loc := time.UTC
	if tz != nil && *tz != "" {
		l, err := time.LoadLocation(*tz)
		if err != nil {
			return nil, fmt.Errorf("time zone %q: %w", *tz, err)
		}
		loc = l
	}
	expr = strings.TrimSpace(expr)
	for _, prefix := range []string{"CRON_TZ=", "TZ="} {
		if rest, ok := strings.CutPrefix(expr, prefix); ok {
			name, spec, _ := strings.Cut(rest, " ")
			l, err := time.LoadLocation(name)
			if err != nil {
				return nil, fmt.Errorf("time zone %q: %w", name, err)
			}
			loc, expr = l, strings.TrimSpace(spec)
		}
	}
	if m, ok := cronMacros[expr]; ok {
		expr = m
	}
	fields := strings.Fields(expr)
	if len(fields) != 5 {
		return nil, fmt.Errorf("schedule %q: want 5 fields, got %d", expr, len(fields))
	}
	s := &cronSchedule{loc: loc}
	var err error
	if s.minute, _, err = cronField(fields[0], 0, 59); err != nil {
		return nil, err
	}
	if s.hour, _, err = cronField(fields[1], 0, 23); err != nil {
		return nil, err
	}
	if s.dom, s.domStar, err = cronField(fields[2], 1, 31); err != nil {
		return nil, err
	}
	if s.month, _, err = cronField(fields[3], 1, 12); err != nil {
		return nil, err
	}
	if s.dow, s.dowStar, err = cronField(fields[4], 0, 7); err != nil {
		return nil, err
	}
	if s.dow&(1<<7) != 0 { // 7 is Sunday too
		s.dow |= 1
	}
	return s, nil
}

// cronField parses one field into a bitset; star reports an unrestricted
// field ("*" or "?"), which changes how day-of-month and day-of-week combine.
func cronField(field string, lo, hi int) (bits uint64, star bool, err error) {
	for _, part := range strings.Split(field, ",") {
		rng, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			if step, err = strconv.Atoi(stepText); err != nil || step <= 0 {
				return 0, false, fmt.Errorf("cron field %q: bad step", field)
			}
		}
		start, end := lo, hi
		switch {
		case rng == "*" || rng == "?":
			if step == 1 {
				star = true
			}
		default:
			a, b, isRange := strings.Cut(rng, "-")
			if start, err = cronValue(a, lo, hi); err != nil {
				return 0, false, err
			}
			end = start
			if isRange {
				if end, err = cronValue(b, lo, hi); err != nil {
					return 0, false, err
				}
			} else if hasStep {
				end = hi
			}
		}
		if start > end {
			return 0, false, fmt.Errorf("cron field %q: empty range", field)
		}
		for v := start; v <= end; v += step {
			bits |= 1 << uint(v)
		}
	}
	return bits, star, nil
}

func cronValue(s string, lo, hi int) (int, error) {
	if v, ok := cronNames[strings.ToLower(s)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("cron value %q out of range %d-%d", s, lo, hi)
	}
	return v, nil
}

func (s *cronSchedule) dayMatches(t time.Time) bool {
	dom := s.dom&(1<<uint(t.Day())) != 0
	dow := s.dow&(1<<uint(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}

// next returns the first scheduled time after t (zero if none within five
// years, e.g. February 30th).
func (s *cronSchedule) next(t time.Time) time.Time {
	t = t.In(s.loc)
	t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, s.loc).Add(time.Minute)
	limit := t.AddDate(5, 0, 0)
	for t.Before(limit) {
		switch {
		case s.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, s.loc)
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, s.loc)
		case s.hour&(1<<uint(t.Hour())) == 0:
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, s.loc)
		case s.minute&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

// count returns how many scheduled times fall in (from, to], up to limit.
func (s *cronSchedule) count(from, to time.Time, limit int) int {
	n := 0
	for t := s.next(from); !t.IsZero() && !t.After(to) && n < limit; t = s.next(t) {
		n++
	}
	return n
}

// period is the interval between the next two scheduled times after t.
// missed counts the start times after last that are due by now (at most
// 1000), with two minutes of grace: the controller starts a run shortly
// after its time, not on the second.
func (s *cronSchedule) Missed(last, now time.Time) int {
	return s.count(last, now.Add(-2*time.Minute), 1000)
}

// PastDeadline is the first start time after last that the controller can
// no longer start: with startingDeadlineSeconds set, a run whose time is
// older than the deadline is skipped for good, and the controller records
// no event for it (kubernetes/kubernetes#101148). Zero when there is none
// or no deadline is set.
func (s *cronSchedule) PastDeadline(last, now time.Time, deadline *int64) time.Time {
	if deadline == nil {
		return time.Time{}
	}
	due := s.next(last)
	if due.IsZero() || s.Missed(last, now) == 0 || now.Sub(due) <= time.Duration(*deadline)*time.Second {
		return time.Time{}
	}
	return due
}

func (s *cronSchedule) Period(t time.Time) time.Duration {
	a := s.next(t)
	if a.IsZero() {
		return 0
	}
	b := s.next(a)
	if b.IsZero() {
		return 0
	}
	return b.Sub(a)
}
