package cmd

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-triage/kubectl-triage/internal/golden"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident/incidenttest"
	"github.com/kubectl-triage/kubectl-triage/pkg/notify"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
	"github.com/kubectl-triage/kubectl-triage/pkg/watcher"
)

// The renderings of one incident's Summary in this package, pinned by
// golden files made from the same fixtures (pkg/incident/incidenttest) as
// Slack's (pkg/notify/testdata/summary-*.json): `kubectl triage -o json`,
// watch's JSON and text lines, and `kubectl triage list -o wide`.

const reportMarkdown = "# Triage: Pod/api-7d9f (shop) — DATABASE_URL is unset\n\n## Summary\n\n…\n"

// renderings are every rendering of inc, by golden file suffix.
func renderings(t *testing.T, inc *incident.Incident) map[string]string {
	t.Helper()
	res := &triage.Result{Incident: inc}
	if inc.Status == incident.Resolved {
		res.Markdown = reportMarkdown
	}
	var triageJSON bytes.Buffer
	if err := writeTriageJSON(&triageJSON, res); err != nil {
		t.Fatal(err)
	}
	out := watcher.Outcome{Event: &fault.Event{}, Cluster: "prod-admin", Incident: inc, Took: 83*time.Second + 250*time.Millisecond}
	line, err := json.Marshal(newWatchLine(summarize(out)))
	if err != nil {
		t.Fatal(err)
	}
	var list bytes.Buffer
	entries := []*store.Entry{{ID: inc.IncidentID, Dir: inc.Workspace, Incident: inc}}
	now := incidenttest.Created.Add(2 * time.Hour)
	if err := printers.NewTablePrinter(printers.PrintOptions{Wide: true}).PrintObj(incidentTable(entries, true, now), &list); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"triage-json": triageJSON.String(),
		"watch-json":  string(line) + "\n",
		"watch-text":  watchText(summarize(out), now),
		"list-wide":   list.String(),
	}
}

func TestSummaryRenderingsGolden(t *testing.T) {
	for name, inc := range incidenttest.All() {
		for kind, got := range renderings(t, inc) {
			t.Run(kind+"/"+name, func(t *testing.T) {
				golden.AssertString(t, filepath.Join("testdata", "summary", kind+"-"+name+".golden"), got)
			})
		}
	}
}

// Every rendering, Slack's included, shows the same confidence band and the
// same root cause or failure, and none shows what Clean removes. The
// fixture's record says "probable" for a score of 0.95: each shows
// "verified".
func TestSummaryRenderingsAgree(t *testing.T) {
	for name, inc := range incidenttest.All() {
		t.Run(name, func(t *testing.T) {
			s := incident.Summarize(inc).Clean()
			all := renderings(t, inc)
			slack, err := json.Marshal(notify.IncidentMessage(inc, 0))
			if err != nil {
				t.Fatal(err)
			}
			all["slack"] = string(slack)
			for kind, text := range all {
				if strings.Contains(text, incidenttest.Token) || strings.Contains(text, "\x1b") || strings.Contains(text, `\u001b`) {
					t.Errorf("%s shows what Clean removes:\n%s", kind, text)
				}
				if kind != "watch-text" && !strings.Contains(text, s.Cluster) { // a watch line is about one cluster's faults
					t.Errorf("%s does not name cluster %q:\n%s", kind, s.Cluster, text)
				}
			}
			if s.Resolved() {
				// JSON documents carry the band and the score as fields;
				// the others print the Summary's ConfidenceText.
				for _, kind := range []string{"list-wide", "watch-text", "slack"} {
					if !strings.Contains(all[kind], "verified (0.95)") {
						t.Errorf("%s does not show the band of the score:\n%s", kind, all[kind])
					}
				}
				for _, kind := range []string{"triage-json", "watch-json"} {
					if !strings.Contains(all[kind], `"confidenceLevel":`) || !strings.Contains(all[kind], `"verified"`) {
						t.Errorf("%s does not carry the band of the score:\n%s", kind, all[kind])
					}
				}
				for kind, text := range all {
					if !strings.Contains(text, "DATABASE_URL is unset") {
						t.Errorf("%s lacks the root cause:\n%s", kind, text)
					}
				}
			}
		})
	}
}
