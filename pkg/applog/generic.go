package applog

import (
	"regexp"
	"strings"
)

// Lines that say only that something else failed: a wrapper around a
// subprocess's exit, or a retry notice. The failure itself is another
// line, which callers prefer (the rules' decisive-line selection).

// exitOnlyRe is a message whose whole content is a subprocess's exit:
// Go's exec.ExitError ("exit status 2", istio-iptables' "panic: exit
// status 2", linkerd proxy-init's cobra "Error: exit status 3",
// https://github.com/linkerd/linkerd2/issues/6254), Python's
// subprocess.CalledProcessError ("Command '[…]' returned non-zero exit
// status 1."), and the "exit code N" / "command failed" of scripts and
// task runners. One short context before it ("running iptables-restore:")
// names the command, not a cause.
var exitOnlyRe = regexp.MustCompile(`(?i)^(?:(?:panic|fatal(?: error)?|error|err|[\w.]*(?:Error|Exception))\s*:\s*)?(?:[^:]{1,60}:\s*)?(?:exit status \d+|(?:exited |failed )?with (?:exit )?(?:code|status) \d+|exit code:? \d+|command failed|Command '.*' returned non-zero exit status \d+)\.?$`)

// ExitOnly reports whether a line says no more than that a subprocess
// exited non-zero: the subprocess's own error, printed before it, is the
// cause.
func ExitOnly(line string) bool {
	return exitOnlyRe.MatchString(strings.TrimSpace(line))
}

// retryRe marks a line that announces a retry or back-off (hclog's
// "retry=2s" field, "retrying in 5s", "will retry", "backoff").
var retryRe = regexp.MustCompile(`(?i)\bretry=\S|\bretrying\b|\bwill retry\b|\bretry in \d|\bback-?off\b`)

// RetryOnly reports whether a line only says that a failing operation
// will be retried, without stating the failure (no signal): Vault's
// "[ERROR] core: failed to retry join raft cluster: retry=2s" repeats
// the join error logged beside it, which is the cause.
func RetryOnly(line string) bool {
	return retryRe.MatchString(line) && len(Signals(line)) == 0
}

// Weight is how specifically a signal names a cause (higher: surer).
func Weight(sig Signal) int { return weightOf(sig) }
