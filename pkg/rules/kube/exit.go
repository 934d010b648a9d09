package kube

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// ExitCode is one row of the exit-code table.
type ExitCode struct {
	Meaning string
	Hint    string
}

// exitCodes explains the exit codes containers commonly die with; 128+n is a
// death by signal n.
var exitCodes = map[int32]ExitCode{
	0: {"exited successfully", "the main process finished; with restartPolicy Always the kubelet restarts it, so a process that is meant to run forever is returning early (a script that ends, a server started in the background)"},
	1: {"general application error", "the application exited on an error of its own"},
	2: {"misuse or invalid arguments", "the command line or shell script given to the container is wrong"},
	// sysexits.h (BSD, used by Elasticsearch, Postfix, sendmail, many CLIs):
	// a program that uses them says which class of failure it hit.
	64:  {"command-line usage error (EX_USAGE)", "by the sysexits.h convention the program was called with wrong arguments or flags"},
	65:  {"data format error (EX_DATAERR)", "by the sysexits.h convention the input data was incorrect"},
	66:  {"input missing (EX_NOINPUT)", "by the sysexits.h convention an input file did not exist or was not readable"},
	69:  {"service unavailable (EX_UNAVAILABLE)", "by the sysexits.h convention a service or dependency the program needs is unavailable"},
	70:  {"internal software error (EX_SOFTWARE)", "by the sysexits.h convention the program hit an internal error"},
	71:  {"system error (EX_OSERR)", "by the sysexits.h convention an operating-system call failed (fork, a pipe)"},
	73:  {"cannot create output file (EX_CANTCREAT)", "by the sysexits.h convention the program could not create a file it writes"},
	74:  {"input/output error (EX_IOERR)", "by the sysexits.h convention reading or writing a file failed"},
	75:  {"temporary failure (EX_TEMPFAIL)", "by the sysexits.h convention a temporary failure: retrying later may work"},
	77:  {"permission denied (EX_NOPERM)", "by the sysexits.h convention the program lacks a permission it needs"},
	78:  {"configuration error (EX_CONFIG)", "by the sysexits.h convention the program found its configuration (or the host settings it checks) unusable; Elasticsearch exits 78 when a bootstrap check fails"},
	126: {"command not executable", "the entrypoint exists but cannot be executed (permissions, wrong binary format)"},
	127: {"command not found", "the entrypoint or a command it runs does not exist in the image"},
	128: {"could not start (exit 128)", "the runtime reports 128 when the container's process could not be started at all (reason StartError or ContainerCannotRun: a missing or non-executable entrypoint, a failed mount); an application may also exit 128 on its own"},
	130: {"interrupted (SIGINT)", "the process received SIGINT"},
	134: {"aborted (SIGABRT)", "the process aborted itself, usually a failed assertion or a runtime abort"},
	137: {"killed (SIGKILL)", "something killed the process with SIGKILL: a failed liveness probe after the grace period, a preStop timeout, or a kill from outside; OOM kills report reason OOMKilled"},
	139: {"segmentation fault (SIGSEGV)", "the process accessed invalid memory: a native crash, often a binary built for another libc or CPU"},
	143: {"terminated (SIGTERM)", "the process was asked to stop with SIGTERM: a liveness probe failure, a rollout or a node drain"},
	255: {"exit status 255", "the process exited with -1/255, often a generic fatal error or an exec failure in a wrapper"},
}

func ExplainExit(code int32) ExitCode {
	if e, ok := exitCodes[code]; ok {
		return e
	}
	if code > 128 && code < 160 {
		return ExitCode{fmt.Sprintf("killed by signal %d", code-128), "the process died from a signal"}
	}
	return ExitCode{fmt.Sprintf("exit code %d", code), "the application chose this exit code; its documentation or logs say what it means"}
}

func ExitSuffix(t *corev1.ContainerStateTerminated) string {
	if t == nil {
		return ""
	}
	return fmt.Sprintf(" with exit code %d", t.ExitCode)
}
