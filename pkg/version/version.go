// Package version holds what `make` injects at link time.
package version

import (
	"runtime"
	"runtime/debug"
)

// Set with -ldflags "-X github.com/kubectl-triage/kubectl-triage/pkg/version.Version=v1.2.3 …".
var (
	Version = "v0.0.0-dev"
	Commit  = "unknown"
)

// Info is what `kubectl triage version` prints.
type Info struct {
	Version    string `json:"version"`
	Commit     string `json:"commit"`
	GoVersion  string `json:"goVersion"`
	Platform   string `json:"platform"`
	ClientGo   string `json:"clientGoVersion"`
	CLIRuntime string `json:"cliRuntimeVersion"`
	// Stores are the --store schemes this build links (the command fills
	// them in: the krew build and the container image's differ).
	Stores []string `json:"stores,omitempty"`
}

// Get reports the build's versions, reading library versions from the
// binary's own module information.
func Get() Info {
	info := Info{Version: Version, Commit: Commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			switch d.Path {
			case "k8s.io/client-go":
				info.ClientGo = d.Version
			case "k8s.io/cli-runtime":
				info.CLIRuntime = d.Version
			}
		}
	}
	return info
}

// UserAgent identifies the plugin to the API server (and in its audit log).
func UserAgent() string {
	return "kubectl-triage/" + Version + " (" + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
