package applog

import (
	"strings"
	"testing"
)

// TestExitCascade: the first record of the failure a process exited on
// that names something beats the generic lines it unwinds through; a
// last line that names something, or one far from the others, stays.
func TestExitCascade(t *testing.T) {
	for _, tt := range []struct {
		name, log, want string
	}{
		// https://github.com/apecloud/kubeblocks/issues/6936
		{"mysqld aborting after the setting it refuses",
			"2024-04-01T08:32:04.910248Z 0 [System] [MY-010116] [Server] /usr/sbin/mysqld (mysqld 8.0.33) starting as process 1\n" +
				"2024-04-01T08:32:05.692379Z 1 [ERROR] [MY-011087] [Server] Different lower_case_table_names settings for server ('1') and data dictionary ('0').\n" +
				"2024-04-01T08:32:05.692529Z 0 [ERROR] [MY-010020] [Server] Data Dictionary initialization failed.\n" +
				"2024-04-01T08:32:05.692551Z 0 [ERROR] [MY-010119] [Server] Aborting\n" +
				"2024-04-01T08:32:06.923842Z 0 [System] [MY-010910] [Server] /usr/sbin/mysqld: Shutdown complete (mysqld 8.0.33)  MySQL Community Server - GPL.\n",
			"lower_case_table_names"},
		{"the last line names its own cause",
			"ERROR: could not load plugin 'auth_ldap'\n" +
				"ERROR: cannot open /etc/app/app.conf: no such file\n",
			"/etc/app/app.conf"},
		{"an earlier error of another moment is not the cascade",
			"ERROR: could not load plugin 'auth_ldap'\n" +
				"INFO: retrying\nINFO: retrying\nINFO: retrying\nINFO: retrying\nINFO: retrying\n" +
				"ERROR: initialization failed\n" +
				"ERROR: aborting\n",
			"aborting"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ds := Decide(tt.log, Options{})
			if len(ds) == 0 || !strings.Contains(ds[0].Text, tt.want) {
				t.Fatalf("decisive %+v, want the line naming %q", ds, tt.want)
			}
		})
	}
}
