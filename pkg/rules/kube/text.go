package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agnivade/levenshtein"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

func AppendUnique(dst []string, src ...string) []string {
	for _, s := range src {
		found := false
		for _, d := range dst {
			if d == s {
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, s)
		}
	}
	return dst
}

func SortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func ValueOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func Clock(t time.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	return t.UTC().Format("15:04:05Z")
}

// Ago says how long before now t was, rounded for a human.
func Ago(now, t time.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// nodeList names up to limit nodes and counts the rest.
func NamesUpTo(names []string, limit int) string {
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:limit], ", "), len(names)-limit)
}

func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// Shorten cuts s to at most n runes, ending in "..." when cut: a probe's
// script or a log record quoted in a headline.
func Shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}

func Stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// Since says when, absolutely and relative to the investigation.
func Since(c *rule.Pass, t time.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	return fmt.Sprintf("%s (%s ago)", Stamp(t), HumanDuration(c.Now.Sub(t)))
}

func HumanDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		h := int(d.Hours())
		if m := int(d.Minutes()) % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", h, m)
		}
		return fmt.Sprintf("%dh", h)
	}
	days := int(d.Hours()) / 24
	if h := int(d.Hours()) % 24; h != 0 {
		return fmt.Sprintf("%dd%dh", days, h)
	}
	return fmt.Sprintf("%dd", days)
}

// EditDistance is the Levenshtein distance (over runes), for telling a
// typo from an unrelated label value.
func EditDistance(a, b string) int { return levenshtein.ComputeDistance(a, b) }

func StampPtr(t *metav1.Time) string {
	if t == nil {
		return "never"
	}
	return Stamp(t.Time)
}
