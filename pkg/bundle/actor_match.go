package bundle

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// How a workload's pod template names the controller it runs
// (actors.go): by a value, a flag, or a sidecar's image and the driver its
// workload is named after.

// sidecarOf: the container is a CSI sidecar (its image names it:
// csi-resizer, csi-provisioner) serving driver, whose first label
// ("csi-sanlock-lvm" of csi-sanlock-lvm.csi.vleo.net) the workload's
// name, its namespace or a hostPath of its pod names: a sidecar learns
// the driver's name over its socket, so its own args seldom carry it.
func sidecarOf(w *metav1.ObjectMeta, spec *corev1.PodSpec, ctr *corev1.Container, sidecar, driver string) bool {
	if w == nil || !strings.Contains(ctr.Image, "/"+sidecar+":") && !strings.HasPrefix(ctr.Image, sidecar+":") {
		return false
	}
	label, _, _ := strings.Cut(driver, ".")
	token := strings.TrimSuffix(strings.TrimPrefix(label, "csi-"), "-csi")
	if len(token) < 3 {
		return false
	}
	if strings.Contains(w.Name, token) || strings.Contains(w.Namespace, token) {
		return true
	}
	for _, v := range spec.Volumes {
		if v.HostPath != nil && strings.Contains(v.HostPath.Path, token) {
			return true
		}
	}
	return false
}

// namesValue: an env value, arg or command word of the container is the
// name, or sets it ("--provisioner=fuseim.pri/ifs").
func namesValue(ctr *corev1.Container, name string) bool {
	for _, e := range ctr.Env {
		if e.Value == name {
			return true
		}
	}
	for _, w := range append(append([]string(nil), ctr.Command...), ctr.Args...) {
		if w == name || strings.HasSuffix(w, "="+name) {
			return true
		}
	}
	return false
}

// setsFlag: the container's command line sets --flag to value (as
// "--flag=value" or "--flag value").
func setsFlag(ctr *corev1.Container, flag, value string) bool {
	words := append(append([]string(nil), ctr.Command...), ctr.Args...)
	for i, w := range words {
		w = strings.TrimLeft(w, "-")
		if w == flag+"="+value || w == flag && i+1 < len(words) && words[i+1] == value {
			return true
		}
	}
	return false
}

// score is a match that is sure or not at all.
func score(match bool) int {
	if match {
		return 1
	}
	return 0
}
