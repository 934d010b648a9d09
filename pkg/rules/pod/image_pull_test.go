package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestImagePull: the kubelet's pull error is classified by what the
// registry (or the node) answered.
func TestImagePull(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		reason, message string
		want            rule.Category
	}{
		{"ErrImagePull", `failed to pull and unpack image "registry.example.com/shop/api:9.9.9": failed to resolve reference: registry.example.com/shop/api:9.9.9: not found`, rule.ImagePull.Sub("NotFound")},
		{"ImagePullBackOff", `Back-off pulling image "registry.example.com/private/api:1.0": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials`, rule.ImagePull.Sub("Auth")},
		{"ErrImagePull", `failed to do request: Head "https://10.99.0.1:5999/v2/shop/api/manifests/1.4.2": dial tcp 10.99.0.1:5999: connect: connection refused`, rule.ImagePull.Sub("Unreachable")},
		{"ErrImagePull", `rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/foundationdb/fdb-kubernetes-operator:v2.6.0": no match for platform in manifest: not found`, rule.ImagePull.Sub("Platform")},
		{"ErrImagePull", `failed to do request: Head "https://harbor.corp.lan/v2/platform/api/manifests/3.4.1": tls: failed to verify certificate: x509: certificate signed by unknown authority`, rule.ImagePull.Sub("UntrustedCertificate")},
		{"ErrImagePull", `failed to do request: Head "https://registry.gitlab.internal.example:5050/v2/shop/cart/manifests/2.7.0": dial tcp: lookup registry.gitlab.internal.example on 10.0.0.2:53: no such host`, rule.ImagePull.Sub("Unreachable")},
		{"ErrImageNeverPull", `Container image "local/nope:1" is not present with pull policy of Never`, rule.ImagePull.Sub("NeverPull")},
		{"ErrImagePull", `failed to pull and unpack image "docker.io/library/nginx:1.25.3": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/nginx/manifests/sha256:4c0f: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit`, rule.ImagePull.Sub("RateLimited")},
		// https://github.com/tableau/tableau-server-in-kubernetes/issues/14
		{"ErrImagePull", `rpc error: code = Unknown desc = failed to register layer: Error processing tar file(exit status 1): write /tableau-server-2022-1-0.x86_64.rpm: no space left on device`, rule.ImagePull.Sub("NoSpace")},
		// https://github.com/Kaggle/docker-python/issues/19 (dockerd's ApplyLayer wording)
		{"ErrImagePull", `failed to register layer: ApplyLayer exit status 1 stdout:  stderr: write /usr/local/src/opencv/build/modules/video/perf_precomp.hpp.gch/opencv_perf_video_RELEASE.gch: no space left on device`, rule.ImagePull.Sub("NoSpace")},
	} {
		t.Run(string(tt.want)+" "+tt.message[len(tt.message)-20:], func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
				Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "shop/api:1",
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: tt.reason, Message: tt.message}}}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}}
			f := ruletest.Root(ruletest.Run(ImagePull, b, now))
			if f == nil || !strings.HasPrefix(string(f.Category), string(tt.want)) || !f.Current {
				t.Fatalf("finding %+v, want %q", f, tt.want)
			}
			// A trust or platform mismatch is named in the runtime's words.
			for class, words := range map[string]string{"UntrustedCertificate": "x509: certificate signed by unknown authority", "Platform": "no match for platform in manifest", "NoSpace": ": no space left on device"} {
				if tt.want == rule.ImagePull.Sub(class) && !strings.Contains(f.Mechanism, words) {
					t.Errorf("mechanism %q does not quote %q", f.Mechanism, words)
				}
			}
		})
	}
}

// TestImagePullDeniedOrMissing: dockerd's "pull access denied for X,
// repository does not exist or may require 'docker login'" (luksa/
// kubernetes-in-action#37: tutum/curl, removed from Docker Hub) does not
// tell a missing repository from a private one; with no pull secret on the
// pod or its ServiceAccount the image was meant to be public, so the
// missing repository comes first. With a pull secret it stays a
// credentials problem.
func TestImagePullDeniedOrMissing(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	const hub = "tutum/curl"
	// containerd's wording for an organisation's own registry (kubernetes/
	// minikube#7828 shape): there a refusal means the credentials are missing.
	const own = "registry.example.com/ops/db-migrate:1.9.0"
	for _, tt := range []struct {
		name    string
		image   string
		secrets []corev1.LocalObjectReference
		want    rule.Category
		culprit string
	}{
		{"no pull secret", hub, nil, rule.ImagePull.Sub("NotFoundOrPrivate"), "repository tutum/curl not found in docker.io"},
		{"a pull secret", hub, []corev1.LocalObjectReference{{Name: "hub"}}, rule.ImagePull.Sub("Auth", "WrongCredentials"), "imagePullSecrets hub"},
		{"no pull secret, an organisation's registry", own, nil, rule.ImagePull.Sub("Auth", "NoPullSecret"), own},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msg := `Failed to pull image "tutum/curl": rpc error: code = Unknown desc = Error response from daemon: pull access denied for tutum/curl, repository does not exist or may require 'docker login'`
			if tt.image == own {
				msg = `Failed to pull image "` + own + `": failed to pull and unpack image "` + own + `": failed to resolve reference "` + own + `": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed`
			}
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "curl", Namespace: "shop", UID: "p1"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: tt.image}}},
				Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: tt.image,
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "` + tt.image + `"`}}}}}}
			sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "shop"}, ImagePullSecrets: tt.secrets}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "curl", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}, ServiceAccounts: []*corev1.ServiceAccount{sa},
				Events: []corev1.Event{{InvolvedObject: corev1.ObjectReference{UID: "p1"}, Reason: "Failed", Message: msg, Count: 2}}}
			f := ruletest.Root(ruletest.Run(ImagePull, b, now))
			if f == nil || string(f.Category) != string(tt.want) || !strings.Contains(f.Culprit, tt.culprit) {
				t.Fatalf("finding %+v, want %q naming %q", f, tt.want, tt.culprit)
			}
		})
	}
}
