package pod

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// probeStateNotReached: the probe waits for a state of the application's
// own (a cluster health, an availability state) and the application's log
// says it is in another one. The probe's output only says "not ready"; the
// log's last state change says which state, and that state's meaning says
// why (docs/DESIGN.md §7, "A probe and the state it waits for").
const probeStateNotReached probeClass = "StateNotReached"

// awaitedStateRes find the state a probe waits for in its command, path or
// output: the cluster health API's wait_for_status (Elasticsearch,
// OpenSearch), or a command that greps a status field for a value.
var awaitedStateRes = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bwait_for_status=(?P<state>[a-z]+)`),
	regexp.MustCompile(`(?i)"(?:status|state)"\s*:\s*"(?P<state>[A-Za-z_]+)"`),
}

// reportedStateRes find an application reporting its own state change:
// "Cluster health status changed from [RED] to [YELLOW]" (Elasticsearch's
// AllocationService), "state changed from X to Y", "status changed to Y",
// "readiness state changed to: REFUSING_TRAFFIC".
//
// The words before the change must name the application's own serving
// state (its health, readiness, availability, the cluster or the server):
// "job status changed to failed" or "connection state changed to CLOSED"
// is about something else.
var reportedStateRes = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(?P<subject>\b(?:health|status|state)\b[^\n]{0,40}?)\bchanged\s+from\s+\[?[A-Za-z_-]+\]?\s+to\s+\[?(?P<state>[A-Za-z_-]+)\]?`),
	regexp.MustCompile(`(?i)(?P<subject>\b(?:health|status|state)\b[^\n]{0,40}?)\b(?:changed|transitioned|switched)\s+to:?\s+\[?(?P<state>[A-Za-z_-]+)\]?`),
}

// servingSubjectRe: the words of a state line that make it the
// application's serving state, searched just before the change.
var servingSubjectRe = regexp.MustCompile(`(?i)\b(?:health|readiness|liveness|availability|cluster|server|service|application|node)\b`)

// notServingStates are states that mean an application does not serve,
// for a probe that names no state of its own (an HTTP health path that
// answers 503).
var notServingStates = map[string]bool{
	"red": true, "yellow": true, "down": true, "out_of_service": true, "refusing_traffic": true,
	"broken": true, "unhealthy": true, "degraded": true, "not_serving": true, "failed": true,
}

// stateMeaning is what one application's state means, and its fix.
type stateMeaning struct {
	line  *regexp.Regexp // the application's state line
	state string         // lower case
	means string
	fix   string
}

// stateMeanings: Elasticsearch's cluster health colours, as its cluster
// health API documents them: yellow when replica shards are unassigned
// (a replica is never put on the node that holds its primary, so a
// single-node cluster stays yellow while an index asks for replicas), red
// when a primary shard is.
var stateMeanings = []stateMeaning{
	{regexp.MustCompile(`(?i)cluster health status`), "yellow",
		"yellow means replica shards are unassigned: a replica is never placed on the node that holds its primary, so a cluster with fewer nodes than an index's number_of_replicas + 1 stays yellow for good",
		"Let the cluster reach green (on a single node: set the indices' number_of_replicas to 0; otherwise add the nodes the replicas need), or have the probe accept yellow (wait_for_status=yellow; the elastic Helm chart's clusterHealthCheckParams)."},
	{regexp.MustCompile(`(?i)cluster health status`), "red",
		"red means a primary shard is unassigned: an index is missing data, often a node with its data gone or the disk watermark reached",
		"Find the unassigned primaries (GET _cluster/allocation/explain) and restore the node or data that holds them."},
}

// probeStateReason reads the container's current log for the application's
// last state change and compares it with the state the probe waits for (or,
// when the probe names none, with the states that mean "not serving").
func probeStateReason(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container, pr *corev1.Probe, output string) *probeAnswer {
	want, asks := awaitedState(pr, output)
	cur, _ := c.B.LogsFor(p.Name, ctr.Name)
	if cur == nil || cur.Error != "" {
		return nil
	}
	// The last state change is the state the application is in.
	line, state := "", ""
	log := applog.Parse(cur.Text)
	for i := range log.Events {
		text := log.Events[i].Text()
		for _, re := range reportedStateRes {
			loc := re.FindStringSubmatchIndex(text)
			if loc == nil {
				continue
			}
			// The subject is read in the words just before the change
			// ("Cluster health status", "Spring readiness state"), not
			// anywhere in a structured record's other fields.
			subj, st := 2*re.SubexpIndex("subject"), 2*re.SubexpIndex("state")
			got := text[loc[st]:loc[st+1]]
			if !servingSubjectRe.MatchString(text[max(0, loc[subj]-40):loc[st]]) || !sameKindOfState(want, got) {
				continue
			}
			line, state = strings.TrimSpace(kube.FirstLine(text)), got
			break
		}
	}
	low := strings.ToLower(state)
	switch {
	case state == "":
		return nil
	case want != "" && (strings.EqualFold(want, state) || colourAtLeast(state, want)):
		return nil // it reached the state; something else fails the probe
	case want == "" && !notServingStates[low]:
		return nil
	}
	line = kube.Shorten(line, 300)
	explains := fmt.Sprintf("the application reports its state is %s", state)
	if want != "" {
		explains = fmt.Sprintf("the probe waits for the application's state %s (%s), and its log says the state is %s", want, asks, state)
	}
	ans := &probeAnswer{probeReason: probeReason{class: probeStateNotReached, explains: explains}, line: line, subject: state}
	for _, m := range stateMeanings {
		if m.state == low && m.line.MatchString(line) {
			ans.explains += ": " + m.means
			ans.causeFix = m.fix
		}
	}
	ans.want, ans.asks = want, asks
	return ans
}

// sameKindOfState: a state line answers the probe's awaited state only
// when both are of one kind: waiting for a health colour is answered by a
// colour, not by some component's "state changed to RUNNING".
func sameKindOfState(want, state string) bool {
	_, wantColour := healthColours[strings.ToLower(want)]
	_, isColour := healthColours[strings.ToLower(state)]
	return want == "" || wantColour == isColour
}

// healthColours rank the cluster health API's states: waiting for yellow is
// satisfied by green (wait_for_status waits for that status or better).
var healthColours = map[string]int{"red": 0, "yellow": 1, "green": 2}

// colourAtLeast: state is a health colour at least as good as want.
func colourAtLeast(state, want string) bool {
	s, ok1 := healthColours[strings.ToLower(state)]
	w, ok2 := healthColours[strings.ToLower(want)]
	return ok1 && ok2 && s >= w
}

// awaitedState is the state the probe waits for and the words that ask for
// it ("wait_for_status=green"); "" when it names none.
func awaitedState(pr *corev1.Probe, output string) (state, asks string) {
	texts := []string{output}
	if pr.Exec != nil {
		texts = append(texts, strings.Join(pr.Exec.Command, " "))
	}
	if pr.HTTPGet != nil {
		texts = append(texts, pr.HTTPGet.Path)
	}
	for _, t := range texts {
		for _, re := range awaitedStateRes {
			if m, ok := submatch.Find(re, t); ok {
				return m.Get("state"), re.FindString(t)
			}
		}
	}
	return "", ""
}

// stateHeadline is the title's clause for a state the probe waits for.
func (a *probeAnswer) stateHeadline(target probeTarget) string {
	if a.want != "" {
		return fmt.Sprintf("(%s) waits for state %s (%s), and the application's log says it is %s", target.Desc, a.want, a.asks, a.subject)
	}
	return fmt.Sprintf("(%s) fails while the application's log says its state is %s", target.Desc, a.subject)
}

// stateFix: the state's own fix when its meaning is known; otherwise what
// keeps the application there, or a probe that accepts it.
func (a *probeAnswer) stateFix(p *corev1.Pod, ctr *corev1.Container, kind probeKind) report.Action {
	desc := a.causeFix
	if desc == "" {
		desc = fmt.Sprintf("Find out what keeps the application in state %s (its log around the state change), or have the %s probe accept that state if it is a sound one to serve in.", a.subject, strings.ToLower(kind.Name))
	}
	return report.Action{Kind: report.Immediate, Description: desc,
		Commands: []string{kube.LogsCmd(p, ctr.Name, false), containerSpecCmd(p, ctr.Name, kind.Field)}}
}
