package agent

import "os/exec"

// setProcessGroup: Windows has no process groups to signal or SIGINT to
// send; a cancel ends the agent at once.
func setProcessGroup(cmd *exec.Cmd) (exited func()) {
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	return func() {}
}

// reap has nothing more to find on Windows: the agent was killed directly.
func reap(int, string) {}
