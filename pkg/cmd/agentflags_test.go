package cmd

import (
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/target"
)

func TestWritingTools(t *testing.T) {
	cases := []struct {
		allowed string
		want    []string
	}{
		{"", nil},
		{"Read,Grep,Glob,Bash(kubectl get:*)", nil},
		{"Read,Write,Grep,Glob,Bash,Skill", []string{"Write", "Bash"}}, // a common deployment default
		{"Edit MultiEdit", []string{"Edit", "MultiEdit"}},
	}
	for _, c := range cases {
		if got := writingTools(c.allowed); !slices.Equal(got, c.want) {
			t.Errorf("writingTools(%q) = %v, want %v", c.allowed, got, c.want)
		}
	}
}

func TestParseLogLevel(t *testing.T) {
	cases := []struct {
		in      string
		want    slog.Level
		wantErr bool
	}{
		{"debug", slog.LevelDebug, false},
		{"INFO", slog.LevelInfo, false},
		{"warn", slog.LevelWarn, false},
		{"warning", slog.LevelWarn, false},
		{"error", slog.LevelError, false},
		{"trace", 0, true},
	}
	for _, c := range cases {
		got, err := parseLogLevel(c.in)
		if (err != nil) != c.wantErr || (!c.wantErr && got != c.want) {
			t.Errorf("parseLogLevel(%q) = %v, %v", c.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "want debug, info, warn or error") {
			t.Errorf("error %q does not list the levels", err)
		}
	}
}

func TestMistypedCommand(t *testing.T) {
	root := NewCmdTriage(genericiooptions.NewTestIOStreamsDiscard())
	notFound := errors.New(`pods "lsit" not found in namespace "default"`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"lsit"}, "Did you mean the command 'kubectl triage list'?"},
		{[]string{"stauts", "abcd"}, "Did you mean the command 'kubectl triage status'?"},
		{[]string{"checkout-7d9f"}, ""},
		// replay takes a workspace, which Validate recognises itself: a
		// word two letters from it is a pod name (redis, deploy…).
		{[]string{"replya"}, ""},
		{[]string{"redis"}, ""},
	}
	for _, c := range cases {
		o := &TriageOptions{Args: c.args, suggest: root.SuggestionsFor}
		err := o.mistypedCommand(notFound)
		if !errors.Is(err, notFound) {
			t.Errorf("%v: the original error is lost: %v", c.args, err)
		}
		if c.want == "" && err.Error() != notFound.Error() || c.want != "" && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	// A word understood as something else (a type missing its name) gets
	// no suggestion.
	_, usage := target.Normalize([]string{"pod/"})
	o := &TriageOptions{Args: []string{"gd"}, suggest: root.SuggestionsFor} // gd is close to gc
	if err := o.mistypedCommand(usage); usage == nil || err != usage {
		t.Errorf("a usage error got a suggestion: %v", err)
	}
}
