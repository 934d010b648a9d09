package batch

import (
	"testing"
	"time"
)

func TestCronSchedule(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		expr, tz, from, next string
	}{
		{"*/5 * * * *", "", "2026-11-21T15:02:30Z", "2026-11-21T15:05:00Z"},
		{"0 2 * * *", "", "2026-11-21T15:00:00Z", "2026-11-22T02:00:00Z"},
		{"@hourly", "", "2026-11-21T15:00:00Z", "2026-11-21T16:00:00Z"},
		{"@daily", "", "2026-11-21T15:00:00Z", "2026-11-22T00:00:00Z"},
		{"@weekly", "", "2026-11-21T15:00:00Z", "2026-11-22T00:00:00Z"}, // 2026-11-22 is a Sunday
		{"@monthly", "", "2026-11-21T15:00:00Z", "2026-12-01T00:00:00Z"},
		{"@yearly", "", "2026-11-21T15:00:00Z", "2027-01-01T00:00:00Z"},
		{"30 9 * * MON-FRI", "", "2026-11-21T15:00:00Z", "2026-11-23T09:30:00Z"},
		{"0 0 1,15 * *", "", "2026-11-21T15:00:00Z", "2026-12-01T00:00:00Z"},
		{"0 0 13 * 5", "", "2026-11-01T00:00:00Z", "2026-11-06T00:00:00Z"}, // day-of-month OR day-of-week: Friday the 6th
		{"0 0 * * 7", "", "2026-11-21T15:00:00Z", "2026-11-22T00:00:00Z"},  // 7 is Sunday
		{"15 10-12/2 * JAN,NOV *", "", "2026-11-21T15:00:00Z", "2026-11-22T10:15:00Z"},
		{"0 3 * * *", "Europe/Berlin", "2026-11-21T15:00:00Z", "2026-11-22T02:00:00Z"},
		{"CRON_TZ=America/New_York 0 9 * * *", "", "2026-11-21T15:00:00Z", "2026-11-22T14:00:00Z"},
		{"0 0 30 2 *", "", "2026-11-21T15:00:00Z", ""},
	}
	for _, tt := range tests {
		var tz *string
		if tt.tz != "" {
			tz = &tt.tz
		}
		s, err := ParseCron(tt.expr, tz)
		if err != nil {
			t.Errorf("%q: %v", tt.expr, err)
			continue
		}
		got := s.next(at(tt.from))
		if tt.next == "" {
			if !got.IsZero() {
				t.Errorf("%q: next = %v, want none", tt.expr, got)
			}
			continue
		}
		if !got.Equal(at(tt.next)) {
			t.Errorf("%q from %s: next = %s, want %s", tt.expr, tt.from, got.UTC().Format(time.RFC3339), tt.next)
		}
	}
	for _, bad := range []string{"* * * *", "61 * * * *", "*/0 * * * *", "5-1 * * * *", "x * * * *", "@every 5m"} {
		if _, err := ParseCron(bad, nil); err == nil {
			t.Errorf("%q parsed, want an error", bad)
		}
	}
	bad := "Nowhere/City"
	if _, err := ParseCron("* * * * *", &bad); err == nil {
		t.Errorf("unknown time zone parsed")
	}
	s, _ := ParseCron("*/15 * * * *", nil)
	if n := s.count(at("2026-11-21T13:00:00Z"), at("2026-11-21T15:00:00Z"), 1000); n != 8 {
		t.Errorf("count = %d, want 8", n)
	}
	if n := s.count(at("2026-01-01T00:00:00Z"), at("2026-11-21T15:00:00Z"), 100); n != 100 {
		t.Errorf("count is not capped: %d", n)
	}
	if p := s.Period(at("2026-11-21T13:00:00Z")); p != 15*time.Minute {
		t.Errorf("period = %v", p)
	}
}
