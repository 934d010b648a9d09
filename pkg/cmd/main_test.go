package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestMain keeps the developer's settings out of the tests: no config file,
// none of the environment variables kubectl triage reads.
func TestMain(m *testing.M) {
	// A directory that is never made: a test binary killed at its timeout
	// leaves nothing in TMPDIR (tests that write a config set their own).
	dir := filepath.Join(os.TempDir(), "kubectl-triage-cmd-test-"+strconv.Itoa(os.Getpid()), "none")
	os.Setenv("XDG_CONFIG_HOME", dir)
	for _, name := range EnvironmentNames() {
		os.Unsetenv(name)
	}
	code := m.Run()
	if _, err := os.Stat(dir); err == nil {
		fmt.Fprintf(os.Stderr, "a test wrote into the shared XDG_CONFIG_HOME %s: give it its own (t.TempDir)\n", dir)
		os.RemoveAll(filepath.Dir(dir))
		code = 1
	}
	os.Exit(code)
}

func TestEnvironmentNames(t *testing.T) {
	names := EnvironmentNames()
	for _, want := range []string{"AGENT_CLI", "AGENT_TIMEOUT", "WORKSPACE_ROOT", "K8S_CLUSTER_MCP_ENDPOINT", "SLACK_WEBHOOK_URL", "SUBSCRIBE_MODE", "LOG_LEVEL", "KUBECTL_TRIAGE_CONFIG", "K8S_CLUSTER_MCP_TOKEN"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("EnvironmentNames() = %v lacks %s", names, want)
		}
	}
}
