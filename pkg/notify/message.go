package notify

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
)

// Message is a Slack message: Block Kit blocks, plus the text that
// notifications and clients without Block Kit show.
type Message struct {
	Text   string  `json:"text"`
	Blocks []Block `json:"blocks"`
}

// Block is the subset of Block Kit blocks the messages use: header, section
// (text and/or fields), context (elements) and divider.
type Block struct {
	Type     string `json:"type"`
	Text     *Text  `json:"text,omitempty"`
	Fields   []Text `json:"fields,omitempty"`
	Elements []Text `json:"elements,omitempty"`
}

// Text is a Block Kit text object.
type Text struct {
	Type  string `json:"type"` // "plain_text" or "mrkdwn"
	Text  string `json:"text"`
	Emoji bool   `json:"emoji,omitempty"`
}

// Slack's Block Kit limits, in characters; a message over any of them is
// rejected whole ("invalid_blocks"), so texts are cut to fit instead.
const (
	headerLimit  = 150
	sectionLimit = 3000
	fieldLimit   = 2000
	contextLimit = 2000
	// fallbackLimit keeps the notification text short: it is what a phone
	// shows, and the blocks carry the detail.
	fallbackLimit = 300
)

// maxRecentFailures bounds the failures an alert lists (and a streak keeps).
const maxRecentFailures = 10

// IncidentMessage is the message for a finished incident: what was
// diagnosed, or that (and why) the triage failed. took is how long the
// triage took; zero means it is taken from the incident's timestamps. Its
// values come from the incident's Summary, cleaned, as every other
// rendering's do.
func IncidentMessage(inc *incident.Incident, took time.Duration) *Message {
	s := incident.Summarize(inc).Clean()
	if took > 0 {
		s.Duration = took
	}
	if s.Resolved() {
		return resolvedMessage(s)
	}
	return failedMessage(s)
}

func resolvedMessage(s incident.Summary) *Message {
	rootCause := "(the report gives no root cause line)"
	if strings.TrimSpace(s.RootCause) != "" {
		rootCause = scrub(s.RootCause)
	}
	return &Message{
		Text: truncate(fmt.Sprintf("Diagnosed %s on %s: %s",
			escape(subject(s)), escape(clusterOf(s)), escape(rootCause)), fallbackLimit),
		Blocks: []Block{
			header(":white_check_mark: Diagnosed " + resourceOf(s)),
			fields(
				"Cluster", clusterOf(s),
				"Namespace", namespaceOf(s),
				"Resource", resourceOf(s),
				"Fault", faultOf(s),
				"Confidence", confidenceOf(s),
				"Duration", humanDuration(s.Duration),
			),
			section("*Root cause*\n", rootCause),
			incidentContext(s),
		},
	}
}

func failedMessage(s incident.Summary) *Message {
	why, detail := failureOf(s)
	blocks := []Block{
		header(":x: Triage failed for " + resourceOf(s)),
		fields(
			"Cluster", clusterOf(s),
			"Namespace", namespaceOf(s),
			"Resource", resourceOf(s),
			"Fault", faultOf(s),
			"Status", string(s.Status),
			"Duration", humanDuration(s.Duration),
		),
		section("*Why it failed*\n", why+detailSuffix(detail)),
	}
	if msg := scrub(strings.TrimSpace(s.Message)); msg != "" {
		// No root cause to show, so show what the fault said.
		blocks = append(blocks, section("*Fault message*\n", msg))
	}
	blocks = append(blocks, incidentContext(s))
	return &Message{
		Text: truncate(fmt.Sprintf("Triage failed for %s on %s: %s",
			escape(subject(s)), escape(clusterOf(s)), escape(why)), fallbackLimit),
		Blocks: blocks,
	}
}

// failureOf says which failure this was (DESIGN.md §4) in words, with the
// recorded failureReason as detail where it adds something.
func failureOf(s incident.Summary) (why, detail string) {
	reason := scrub(strings.TrimSpace(s.FailureReason))
	switch {
	case s.Status == incident.AgentFailed:
		return "no valid report: the agent finished but its report is missing or invalid", reason
	case reason == incident.ReasonTimeout:
		return "timeout: the agent did not finish within its timeout", ""
	case reason == incident.ReasonCancelled:
		return "cancelled: the triage was stopped before it finished", ""
	case reason == "":
		return "failed (no reason recorded)", ""
	}
	return reason, "" // e.g. "agent exited with code 2", "collect evidence: …"
}

func detailSuffix(detail string) string {
	if detail == "" {
		return ""
	}
	return "\n" + detail
}

// Failure is one failed triage as a circuit-breaker alert lists it.
type Failure struct {
	IncidentID string
	Resource   string // Kind/name
	Namespace  string
	Reason     string
}

func failureSummary(inc *incident.Incident) Failure {
	s := incident.Summarize(inc).Clean()
	why, detail := failureOf(s)
	if detail != "" {
		why = detail
	}
	return Failure{IncidentID: s.IncidentID, Resource: resourceOf(s), Namespace: s.Namespace, Reason: why}
}

// BreakerOpenMessage is the alert sent once when consecutive triage
// failures on one cluster reach the threshold; recent are the latest
// failures, oldest first.
func BreakerOpenMessage(cluster string, consecutive int, recent []Failure) *Message {
	headline := fmt.Sprintf("%d consecutive triage failures on cluster %s", consecutive, cluster)
	var list strings.Builder
	for _, f := range recent[max(0, len(recent)-maxRecentFailures):] {
		where := f.Resource
		if f.Namespace != "" {
			where += " -n " + f.Namespace
		}
		fmt.Fprintf(&list, "• %s %s: %s\n", code(f.IncidentID), escape(where), escape(f.Reason))
	}
	blocks := []Block{
		header(":rotating_light: Triage failing on " + cluster),
		{Type: "section", Text: mrkdwn(truncate(fmt.Sprintf(
			"*%d consecutive triage failures on cluster %s.*\n`kubectl triage watch` keeps triaging new faults and posts a recovery message when one succeeds. "+
				"Check the agent (its credentials, model and timeout) and the failed incidents with `kubectl triage show ID`.",
			consecutive, code(cluster)), sectionLimit))},
	}
	if list.Len() > 0 {
		blocks = append(blocks, Block{Type: "section", Text: mrkdwn(truncate("*Last failures*\n"+list.String(), sectionLimit))})
	}
	return &Message{Text: truncate(escape(headline), fallbackLimit), Blocks: blocks}
}

// RecoveredMessage is sent when a triage succeeds on a cluster whose
// circuit-breaker alert went out.
func RecoveredMessage(cluster string, failures int, inc *incident.Incident) *Message {
	return &Message{
		Text: truncate(escape(fmt.Sprintf("Triage recovered on cluster %s after %d consecutive failures", cluster, failures)), fallbackLimit),
		Blocks: []Block{
			header(":large_green_circle: Triage recovered on " + cluster),
			{Type: "section", Text: mrkdwn(truncate(fmt.Sprintf(
				"Incident %s (%s) was diagnosed on cluster %s after %d consecutive failures.",
				code(inc.IncidentID), escape(subject(incident.Summarize(inc).Clean())), code(cluster), failures), sectionLimit))},
		},
	}
}

// header is a plain_text header: Slack does not interpret markup there, so
// nothing needs escaping, only cutting to size.
func header(text string) Block {
	return Block{Type: "header", Text: &Text{Type: "plain_text", Text: truncate(text, headerLimit), Emoji: true}}
}

// fields makes a two-column section from label, value pairs; values are
// cluster-provided and escaped.
func fields(labelValues ...string) Block {
	b := Block{Type: "section"}
	for i := 0; i+1 < len(labelValues); i += 2 {
		b.Fields = append(b.Fields, mrkdwnText(fmt.Sprintf("*%s*\n", labelValues[i]), labelValues[i+1], fieldLimit))
	}
	return b
}

// section is a trusted mrkdwn title followed by escaped text.
func section(title, text string) Block {
	t := mrkdwnText(title, text, sectionLimit)
	return Block{Type: "section", Text: &t}
}

func incidentContext(s incident.Summary) Block {
	agent := s.Agent
	if s.AgentModel != "" {
		agent += " (" + s.AgentModel + ")"
	}
	elements := []Text{
		*mrkdwn("Incident " + code(s.IncidentID)),
		*mrkdwn("Agent " + code(agent)),
	}
	if s.Workspace != "" {
		elements = append(elements, *mrkdwn(truncate("Workspace "+code(s.Workspace), contextLimit)))
	}
	// Where watch --store put it: what a reader elsewhere can open.
	if s.Stored != "" {
		elements = append(elements, *mrkdwn(truncate("Stored "+code(s.Stored), contextLimit)))
	}
	return Block{Type: "context", Elements: elements}
}

func mrkdwn(text string) *Text { return &Text{Type: "mrkdwn", Text: text} }

// mrkdwnText is title followed by text escaped and cut so the whole fits
// limit.
func mrkdwnText(title, text string, limit int) Text {
	return Text{Type: "mrkdwn", Text: title + escapeLimit(text, limit-utf8.RuneCountInString(title))}
}

// code shows s as inline code. Escaped like any text (Slack parses &, <, >
// inside backticks too); a backtick would end the span, so it is swapped.
func code(s string) string {
	if s == "" {
		return "-"
	}
	return "`" + escape(strings.ReplaceAll(s, "`", "'")) + "`"
}

// scrub masks credentials in free text that may quote logs or events (root
// cause, failure reason, fault message): the workspace is redacted, but a
// report may still quote one, and Slack is outside the cluster's trust.
func scrub(s string) string {
	out, _ := redact.Text(s)
	return out
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// escape makes text safe in mrkdwn: Slack reads <…> as links and mentions
// (<!channel>, <@U123>) and & as the start of an entity, so cluster-provided
// text could otherwise ping a channel or forge a link.
func escape(s string) string { return escaper.Replace(s) }

// escapeLimit escapes s and cuts it to limit characters without splitting
// an entity.
func escapeLimit(s string, limit int) string {
	e := escape(s)
	if utf8.RuneCountInString(e) <= limit {
		return e
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		piece := escape(string(r))
		if n+utf8.RuneCountInString(piece) > limit-1 {
			break
		}
		b.WriteString(piece)
		n += utf8.RuneCountInString(piece)
	}
	return b.String() + "…"
}

// truncate cuts s to limit characters, marking the cut. Used on text whose
// escaping is already done and that has no entity near the end worth
// keeping whole.
func truncate(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	runes := []rune(s)
	cut := string(runes[:limit-1])
	// Do not leave half an entity ("&am") behind.
	if i := strings.LastIndexByte(cut, '&'); i >= 0 && !strings.Contains(cut[i:], ";") {
		cut = cut[:i]
	}
	return cut + "…"
}

// clusterOf names the incident's cluster in messages and keys its failure
// streak: the Summary's (the fault's cluster, else the kubeconfig context).
func clusterOf(s incident.Summary) string {
	if s.Cluster != "" {
		return s.Cluster
	}
	return "unknown"
}

func namespaceOf(s incident.Summary) string {
	if s.Namespace != "" {
		return s.Namespace
	}
	return "(cluster-scoped)"
}

func resourceOf(s incident.Summary) string {
	if s.Resource.Name == "" {
		s.Resource.Name = "(unnamed)"
	}
	return s.ResourceName()
}

// subject is the resource with its namespace, kubectl style.
func subject(s incident.Summary) string {
	if s.Namespace != "" {
		return resourceOf(s) + " -n " + s.Namespace
	}
	return resourceOf(s)
}

func faultOf(s incident.Summary) string {
	faultType := s.FaultType
	if faultType == "" {
		faultType = "unknown"
	}
	if s.Severity == "" {
		return faultType
	}
	return faultType + " (" + s.Severity + ")"
}

// confidenceOf is the Summary's confidence, as list and the watch lines
// show it.
func confidenceOf(s incident.Summary) string {
	if c := s.ConfidenceText(); c != "" {
		return c
	}
	return "unknown"
}

func humanDuration(d time.Duration) string {
	if d <= 0 {
		return "unknown"
	}
	if d < time.Second {
		return "<1s"
	}
	return duration.HumanDuration(d)
}
