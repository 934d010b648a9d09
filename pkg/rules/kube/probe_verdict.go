package kube

import (
	"regexp"
	"strings"
)

// infoRecordRe is a log record its logger marks informational or lower:
// "2026-11-30 05:42:57.392 [INFO][226] confd/health.go 177: …",
// "level=info", "I1130 05:42:57.392 …" (klog).
var infoRecordRe = regexp.MustCompile(`(?i)\[(?:info|debug|trace)\]|\blevel=(?:info|debug|trace)\b|^\s*(?:info|debug|trace)\b[: ]|^[ID]\d{4} \d{2}:\d{2}:\d{2}`)

// ProbeVerdict is the decisive line of a probe's output: an exec probe's
// script often logs progress before it prints its verdict (calico-node's
// "[INFO] … Number of node(s) with BGP peering established = 0" then
// "calico/node is not ready: BIRD is not ready: BGP not established with
// 172.17.0.1"). Informational records are skipped and the last line left
// is the verdict; a one-line output is itself.
func ProbeVerdict(output string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(output), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if !infoRecordRe.MatchString(lines[i]) {
			return lines[i]
		}
	}
	return lines[len(lines)-1]
}

// ProbeMessage is a kubelet's "Readiness probe failed: <output>" with the
// output reduced to its verdict (ProbeVerdict).
func ProbeMessage(msg string) string {
	head, output, ok := strings.Cut(strings.TrimSpace(msg), ": ")
	if !ok || !strings.Contains(output, "\n") {
		return FirstLine(msg)
	}
	return head + ": " + ProbeVerdict(output)
}
