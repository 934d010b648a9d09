package pod

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestHostTool: an executable the runtime runs itself (a host tool, its
// shim, an OCI hook) is the node's; the container's own command, or an exec
// after runc starts the container's process, is the image's.
func TestHostTool(t *testing.T) {
	traefik := &corev1.Container{Name: "traefik", Args: []string{"--api"}}
	smi := &corev1.Container{Name: "cuda", Command: []string{"nvidia-smi"}}
	tests := []struct {
		name, message string
		spec          *corev1.Container
		want          string // the tool, "" when it is not one
	}{
		// k3OS without the AppArmor parser (https://github.com/rancher/k3os/issues/702).
		{"containerd apparmor check", `failed to create containerd container: get apparmor_parser version: exec: "apparmor_parser": executable file not found in $PATH`, traefik, "apparmor_parser"},
		// containerd cannot start its shim (https://github.com/containerd/containerd/issues/2481).
		{"containerd shim", `failed to create containerd task: failed to start shim: exec: "containerd-shim": executable file not found in $PATH: unknown`, traefik, "containerd-shim"},
		// Docker's NVIDIA runtime without its hook (https://github.com/NVIDIA/nvidia-docker/issues/958).
		{"nvidia hook", `OCI runtime create failed: exec: "nvidia-container-runtime-hook": executable file not found in $PATH: unknown`, traefik, "nvidia-container-runtime-hook"},
		// Negative: the container's process itself
		// (https://github.com/canonical/docker-snap/issues/184).
		{"the container's command", `failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "nvidia-smi": executable file not found in $PATH: unknown`, smi, ""},
		{"the image's entrypoint, runc's step", `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/docker-entrypoint.sh": stat /docker-entrypoint.sh: no such file or directory: unknown`, traefik, ""},
		{"docker's older wording", `oci runtime error: container_linux.go:247: starting container process caused "exec: \"nvidia-smi\": executable file not found in $PATH"`, traefik, ""},
		{"no runtime step named", `exec: "app": executable file not found in $PATH`, traefik, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := hostTool(tt.message, tt.spec)
			if !ok {
				got = ""
			}
			if got != tt.want {
				t.Errorf("hostTool = %q, want %q", got, tt.want)
			}
		})
	}
}
