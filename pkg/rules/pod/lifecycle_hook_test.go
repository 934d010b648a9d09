package pod

import "testing"

// TestHookError: the hook's own error out of the kubelet's message, its
// output first (a CLI's hint line skipped), else the error.
func TestHookError(t *testing.T) {
	tests := []struct{ name, message, want string }{
		// influxdb2's chart (https://github.com/influxdata/helm-charts/issues/336).
		{"exec hook, CLI output", `Exec lifecycle hook ([sh -c influx v1 dbrp create --default]) for Container "influxdb2" in Pod "monitor1-influxdb2-0_perf(5b1c)" failed - error: command 'sh -c influx v1 dbrp create --default' exited with 1: , message: "Error: invalid argument \"--default\" for \"--bucket-id\" flag: id must have a length of 16 bytes\nSee 'influx v1 dbrp create -h' for help\n"`,
			`Error: invalid argument "--default" for "--bucket-id" flag: id must have a length of 16 bytes`},
		// The kubelet's HTTP hook (pkg/kubelet/lifecycle/handlers.go), e.g.
		// a preStop endpoint that is not served.
		{"http hook", `HTTP lifecycle hook (/shutdown) for Container "web" in Pod "web-7d9_default(a1b2)" failed - error: Get "http://10.244.1.5:8080/shutdown": dial tcp 10.244.1.5:8080: connect: connection refused`,
			`Get "http://10.244.1.5:8080/shutdown": dial tcp 10.244.1.5:8080: connect: connection refused`},
		{"exec hook, no output", `Exec lifecycle hook ([/bin/register]) for Container "app" in Pod "app_ns(u)" failed - error: command '/bin/register' exited with 126: , message: ""`,
			`command '/bin/register' exited with 126`},
		// Negative: newer kubelets record no detail.
		{"no detail", "PostStartHook failed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hookError(tt.message); got != tt.want {
				t.Errorf("hookError = %q, want %q", got, tt.want)
			}
		})
	}
}
