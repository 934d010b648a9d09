package logs

import (
	"strings"
	"testing"
)

// TestYieldToStatedCause: a line that only reports another failure (a
// subprocess's exit, a missing file under a directory the log could not
// create) yields to the line that states it.
func TestYieldToStatedCause(t *testing.T) {
	tests := []struct {
		name, log string
		class     Class
		line      string // a part of the decisive line
	}{
		// https://github.com/istio/istio/issues/28897
		{"istio-iptables panics on iptables-restore's exit status",
			"COMMIT\niptables-restore --noflush /tmp/iptables-rules-1605323206851298933.txt962677351\n" +
				"iptables-restore v1.6.1: iptables-restore: unable to initialize table 'nat'\n\nError occurred at line: 1\n" +
				"Try `iptables-restore -h' or 'iptables-restore --help' for more information.\niptables-save \npanic: exit status 2\n",
			FatalError, "unable to initialize table 'nat'"},
		// Another program and wrapper: linkerd proxy-init's cobra "Error:
		// exit status 3" under iptables' own error
		// (https://github.com/linkerd/linkerd2/issues/6254), whose
		// permission wording already names a class.
		{"linkerd proxy-init's Error: exit status 3",
			"2019/06/18 14:07:11 > iptables -t nat -vnL\n" +
				"2019/06/18 14:07:11 < iptables v1.6.0: can't initialize iptables table `nat': Permission denied (you must be root)\n" +
				"Perhaps iptables or your kernel needs to be upgraded.\n\n2019/06/18 14:07:11 Aborting firewall configuration\nError: exit status 3\n",
			PermissionDenied, "can't initialize iptables table `nat'"},
		// Negative: a panic with a message of its own is the cause.
		{"a panic that states its cause stays",
			"starting worker\nconnecting to queue failed once\npanic: runtime error: invalid memory address or nil pointer dereference\n",
			Panic, "invalid memory address"},
		// Negative: nothing before the wrapper says what failed.
		{"a wrapper with no error before it stays",
			"Writing rules\nCOMMIT\npanic: exit status 2\n",
			Panic, "panic: exit status 2"},
		// https://github.com/sonatype/operator-nxrm3/issues/54
		{"nexus: the lock file is missing because its directory was denied",
			"mkdir: cannot create directory '../sonatype-work/nexus3/tmp': Permission denied\n" +
				"\nWarning:  Cannot open log file: ../sonatype-work/nexus3/log/jvm.log\nWarning:  Forcing option -XX:LogFile=/tmp/jvm.log\n" +
				"java.io.FileNotFoundException: ../sonatype-work/nexus3/tmp/i4j_ZTDnGON8hezynsMX2ZCYAVDtQog=.lock (No such file or directory)\n" +
				"        at java.io.RandomAccessFile.open0(Native Method)\n" +
				"        at com.install4j.runtime.launcher.UnixLauncher.main(UnixLauncher.java:67)\n" +
				"java.io.FileNotFoundException: /nexus-data/karaf.pid (Permission denied)\n" +
				"        at java.io.FileOutputStream.open0(Native Method)\n",
			PermissionDenied, "/nexus-data/karaf.pid (Permission denied)"},
		// Negative: a missing file elsewhere than the denied directory
		// is its own cause.
		{"a missing file under another directory stays",
			"mkdir: cannot create directory '/var/cache/app': Permission denied\n" +
				"Error: open /etc/app/config.yaml: no such file or directory\n",
			MissingFile, "/etc/app/config.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := FindDecisive(tt.log)
			if d == nil || d.Pattern.Class != tt.class || !strings.Contains(d.Line, tt.line) {
				t.Fatalf("got %+v, want %s naming %q", d, tt.class, tt.line)
			}
		})
	}
}

// TestNewClassRows: the classes and rows this batch added, each with a
// second program's wording and a line that must not match.
func TestNewClassRows(t *testing.T) {
	tests := []struct {
		name, line string
		class      Class
		explains   string // a part of the row's explanation; "" for any
		subject    string
	}{
		// https://github.com/grafana/loki/issues/4740, SREGym/SREGym#636
		{"promtail's file target manager", `error creating promtail: failed to make file target manager: too many open files`, WatchLimit, "inotify", "fs.inotify.max_user_instances / max_user_watches"},
		{"promtail's fsnotify watcher", `level=error msg="error creating promtail" error="filetarget.fsnotify.NewWatcher: too many open files"`, WatchLimit, "", ""},
		// coreutils tail (src/tail.c).
		{"tail's inotify fallback", `tail: inotify cannot be used, reverting to polling: Too many open files`, WatchLimit, "", ""},
		// Node's fs.watch under webpack/chokidar.
		{"node's file watchers", `Error: ENOSPC: System limit for number of file watchers reached, watch '/app/src'`, WatchLimit, "", ""},
		// Negative: EMFILE of a server's sockets is the ulimit's.
		{"a server out of descriptors is no watcher", `accept tcp [::]:8080: accept4: too many open files`, "", "", ""},
		// https://github.com/fluent/fluentd-docker-image/issues/326
		{"fluentd's unknown output plugin", `[error]: config error file="/fluentd/etc/fluent.conf" error_class=Fluent::NotFoundPluginError error="Unknown output plugin 'elasticsearch'. Run 'gem search -rd fluent-plugin' to find plugins"`, MissingPlugin, "", "plugin elasticsearch"},
		// fluent-bit src/flb_config.c.
		{"fluent-bit's unknown plugin", `[error] [config] section 'loki' tried to instance a plugin name that doesn't exist`, MissingPlugin, "", "plugin loki"},
		// PostgreSQL src/backend/commands/extension.c.
		{"postgres extension not installed", `ERROR:  could not open extension control file "/usr/share/postgresql/14/extension/postgis.control": No such file or directory`, MissingPlugin, "", "plugin postgis"},
		// Negative: a plugin that loaded and failed is not missing.
		{"a plugin that failed is not missing", `[error]: unexpected error error_class=Fluent::ConfigError error="Invalid Kubernetes API v1 endpoint https://10.96.0.1:443/api"`, "", "", ""},
		// https://github.com/kubernetes/autoscaler/issues/4922
		{"IRSA trust policy", `Failed to create AWS Manager: cannot autodiscover ASGs: WebIdentityErr: failed to retrieve credentials caused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity status code: 403, request id: 67d0fad1`, AuthFailed, "trust policy", ""},
		// GKE workload identity (the metadata server's error).
		{"GKE workload identity", `googleapi: Error 403: Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist)., forbidden`, AuthFailed, "trust policy", ""},
		// Azure workload identity (MSAL's AADSTS error).
		{"Azure federated identity", `AADSTS70021: No matching federated identity record found for presented assertion.`, AuthFailed, "trust policy", ""},
		// Negative: another 403 keeps the generic API row.
		{"Vault's 403 is no trust policy", `error authenticating: Error making API request. Code: 403. Errors: * permission denied`, AuthFailed, "API answers 403", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := classify(tt.line, false)
			if tt.class == "" {
				if p != nil && (p.Class == WatchLimit || p.Class == MissingPlugin) {
					t.Fatalf("got %s, want neither new class", p.Class)
				}
				return
			}
			if p == nil || p.Class != tt.class || !strings.Contains(p.Explains, tt.explains) {
				t.Fatalf("got %+v, want %s (%q)", p, tt.class, tt.explains)
			}
			if tt.subject != "" {
				if got := SubjectOf(p.Class, tt.line); got != tt.subject {
					t.Errorf("subject %q, want %q", got, tt.subject)
				}
			}
		})
	}
}
