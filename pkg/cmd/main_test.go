package cmd

import (
	"os"
	"testing"
)

// TestMain keeps the developer's settings out of the tests: no config file,
// none of the environment variables kubectl triage reads.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kubectl-triage-cmd-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	for _, name := range EnvironmentNames() {
		os.Unsetenv(name)
	}
	code := m.Run()
	os.RemoveAll(dir)
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
