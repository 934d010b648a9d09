package pod

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// versionImage names the image's side of a version mismatch (and of any
// class whose cause is what the image ships: a plugin it lacks): the log says
// what the data or the peer is ("RDB format version 12"), the image tag is
// what the container brings to it (redis:7.2.8), and the tag is what a fix
// pins or moves. "" for other classes.
func versionImage(p *corev1.Pod, container string, dec *logs.Decisive) string {
	if dec == nil || !dec.Pattern.NamesImage() {
		return ""
	}
	if spec := kube.SpecOf(p, container); spec != nil && spec.Image != "" {
		return "the container runs image " + spec.Image
	}
	return ""
}

// withImage adds image (versionImage's words) to a headline's
// parenthesised detail, or makes it the detail.
func withImage(detail, image string) string {
	switch {
	case image == "":
		return detail
	case strings.HasSuffix(detail, ")"):
		return strings.TrimSuffix(detail, ")") + "; " + image + ")"
	}
	return detail + " (" + image + ")"
}
