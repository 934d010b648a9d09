package safefix

import "github.com/kubectl-triage/kubectl-triage/pkg/kubectlcmd"

// call is one kubectl invocation of a proposed command line, read as the
// claim check reads a cited one (kubectlcmd), with what the policy asks of
// it: does it change the cluster, does it destroy what it names.
type call struct{ kubectlcmd.Command }

// readOnlyVerbs change nothing in the cluster.
var readOnlyVerbs = map[string]bool{
	"get": true, "describe": true, "logs": true, "top": true, "explain": true, "events": true,
	"api-resources": true, "api-versions": true, "cluster-info": true, "version": true,
	"diff": true, "auth": true, "config": true, "debug": false,
}

// writes reports whether the call changes the cluster.
func (c call) writes() bool {
	if c.Verb == "rollout" {
		return c.Sub != "history" && c.Sub != "status"
	}
	return !readOnlyVerbs[c.Verb]
}

// destroys reports whether the call deletes or recreates what it names.
func (c call) destroys() bool {
	switch c.Verb {
	case "delete", "drain":
		return true
	case "replace":
		return c.Force
	case "rollout":
		return c.Sub == "restart"
	}
	return false
}

// parse splits a proposed command line into its kubectl calls.
func parse(line string) []call {
	var out []call
	for _, c := range kubectlcmd.Parse(line) {
		out = append(out, call{c})
	}
	return out
}
