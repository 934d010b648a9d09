package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestReadOnlyRoot: a write refused with EROFS by a read-only root
// filesystem is traced to securityContext.readOnlyRootFilesystem and the
// directory that needs a volume. The lines:
//   - nginx in PrivateBin's image under `--read-only`
//     (https://github.com/jgeusebroek/docker-privatebin/issues/10);
//   - busybox's addgroup writing /etc/group in pocket-id's entrypoint
//     (https://github.com/pocket-id/pocket-id/issues/323), a file: its
//     directory needs the volume;
//   - Rust's errno only, no path (openobserve's cache dir,
//     https://github.com/openobserve/openobserve-helm-chart/issues/54).
//
// Negatives: the same line without readOnlyRootFilesystem (longhorn's CSI
// plugin on a read-only host, https://github.com/longhorn/longhorn/issues/474),
// and a path under a writable emptyDir (that volume's case, not the root's).
func TestReadOnlyRoot(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	nginx := "2020-01-16 05:19:48,558 INFO spawned: 'php-fpm' with pid 13\nnginx: [emerg] mkdir() \"/var/lib/nginx/tmp/client_body\" failed (30: Read-only file system)\n2020-01-16 05:19:48,605 INFO exited: nginx (exit status 1; not expected)\n"
	addgroup := "Creating user and group...\naddgroup: /etc/group: Read-only file system\nadduser: unknown group pocket-id\n"
	rust := "thread 'main' panicked at src/config/src/config.rs:1066:57:\ncreate cache dir success: Os { code: 30, kind: ReadOnlyFilesystem, message: \"Read-only file system\" }\n"
	longhorn := "Error: Failed to mkdir /lib-modules: mkdir /lib-modules: read-only file system\n"
	yes, no := true, false
	for _, tt := range []struct {
		name, log string
		readOnly  *bool
		mounts    []corev1.VolumeMount
		where     string // "" when the rule must stay silent
	}{
		{"nginx's temp dir", nginx, &yes, nil, "/var/lib/nginx/tmp/client_body"},
		{"a file: its directory", addgroup, &yes, nil, "/etc"},
		{"no path named", rust, &yes, nil, "a path on the container's root filesystem"},
		{"root writable", longhorn, &no, nil, ""},
		{"not set", longhorn, nil, nil, ""},
		{"under a writable volume", nginx, &yes, []corev1.VolumeMount{{Name: "cache", MountPath: "/var/lib/nginx"}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctr := corev1.Container{Name: "app", Image: "example/app:1", VolumeMounts: tt.mounts}
			if tt.readOnly != nil {
				ctr.SecurityContext = &corev1.SecurityContext{ReadOnlyRootFilesystem: tt.readOnly}
			}
			p := envPod(ctr)
			for _, m := range tt.mounts {
				p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: m.Name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
			}
			fs := ruletest.Run(ReadOnlyRoot, envBundle(p, tt.log), now)
			if tt.where == "" {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %s", fs[0].Culprit)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %d", len(fs))
			}
			f := fs[0]
			if !strings.HasSuffix(string(f.Category), "/ReadOnlyRootFilesystem") || !strings.Contains(f.Culprit, "readOnlyRootFilesystem: true") ||
				!strings.Contains(f.Title, tt.where) || strings.Contains(f.Culprit, "config.rs") {
				t.Errorf("category %q title %q culprit %q, want %q", f.Category, f.Title, f.Culprit, tt.where)
			}
		})
	}
}
