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
		// https://github.com/cri-o/cri-o/issues/2193 (an IP registry whose certificate has no IP SAN)
		{"ErrImagePull", `rpc error: code = Unknown desc = pinging docker registry returned: Get https://192.168.122.1:443/v2/: x509: cannot validate certificate for 192.168.122.1 because it doesn't contain any IP SANs`, rule.ImagePull.Sub("UntrustedCertificate")},
		// https://github.com/containerd/containerd/issues/4938 (containerd's wording)
		{"ErrImagePull", `failed to pull and unpack image "vlab048011.dom047600.lab:5000/myjenkins:latest": failed to resolve reference "vlab048011.dom047600.lab:5000/myjenkins:latest": failed to do request: Head https://vlab048011.dom047600.lab:5000/v2/myjenkins/manifests/latest: http: server gave HTTP response to HTTPS client`, rule.ImagePull.Sub("PlainHTTP")},
		// https://github.com/kubernetes/minikube/pull/19395 (CRI-O, no unqualified-search registries)
		{"ImageInspectError", `Failed to inspect image "kicbase/echo-server:1.0": rpc error: code = Unknown desc = short-name "kicbase/echo-server:1.0" did not resolve to an alias and no unqualified-search registries are defined in "/etc/containers/registries.conf"`, rule.ImagePull.Sub("ShortName")},
		// https://github.com/k8snetworkplumbingwg/multus-cni/issues/1471 (CRI-O 1.34 short-name enforcement)
		{"ErrImagePull", `Failed to pull image "alpine": short name mode is enforcing, but image name alpine:latest returns ambiguous list`, rule.ImagePull.Sub("ShortName")},
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
			for class, words := range map[string]string{"UntrustedCertificate": "x509: c", "Platform": "no match for platform in manifest", "NoSpace": ": no space left on device",
				"PlainHTTP": "http: server gave HTTP response to HTTPS client", "ShortName": "short"} {
				if tt.want == rule.ImagePull.Sub(class) && !strings.Contains(f.Mechanism, "The runtime said: ") || tt.want == rule.ImagePull.Sub(class) && !strings.Contains(f.Mechanism, words) {
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

// TestImagePullPlainHTTP: a registry that answers plain HTTP is named by
// the host the runtime asked (containerd, CRI-O and dockerd word the URL
// differently) with the runtime setting that fixes it; a public registry
// answering plain HTTP is something in between, not a registry to mark
// insecure.
func TestImagePullPlainHTTP(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, image, message string
		want                 rule.Category
		host, fix            string
	}{
		// https://github.com/enix/kube-image-keeper/issues/60 (containerd, a node-local cache on localhost)
		{"containerd", "localhost:7439/docker.io/xxxsoftware/xxx-redis:2023.1.2",
			`Failed to pull image "localhost:7439/docker.io/xxxsoftware/xxx-redis:2023.1.2": rpc error: code = Unknown desc = failed to pull and unpack image "localhost:7439/docker.io/xxxsoftware/xxx-redis:2023.1.2": failed to resolve reference "localhost:7439/docker.io/xxxsoftware/xxx-redis:2023.1.2": failed to do request: Head "https://localhost:7439/v2/docker.io/xxxsoftware/xxx-redis/manifests/2023.1.2": http: server gave HTTP response to HTTPS client`,
			rule.ImagePull.Sub("PlainHTTP"), "localhost:7439", "/etc/containerd/certs.d/localhost:7439/hosts.toml"},
		// https://github.com/cri-o/cri-o/issues/5415 (CRI-O's ping of /v2/)
		{"CRI-O", "local-repo:4000/k8s.gcr.io/etcd:3.5.0",
			`Failed to pull image "local-repo:4000/k8s.gcr.io/etcd:3.5.0": rpc error: code = Unknown desc = error pinging local-repo:4000: Get "https://local-repo:4000/v2/": http: server gave HTTP response to HTTPS client`,
			rule.ImagePull.Sub("PlainHTTP"), "local-repo:4000", `location = "local-repo:4000" insecure = true`},
		// dockerd's wording as in https://github.com/hypriot/image-builder-rpi/issues/281,
		// wrapped by the kubelet: Docker Hub does not speak plain HTTP, so
		// something on the way answered.
		{"dockerd, public registry", "hypriot/rpi-traefik:latest",
			`Failed to pull image "hypriot/rpi-traefik:latest": rpc error: code = Unknown desc = Error response from daemon: Get https://registry-1.docker.io/v2/: http: server gave HTTP response to HTTPS client`,
			rule.ImagePull.Sub("PlainHTTP", "Intercepted"), "registry-1.docker.io", "HTTPS_PROXY"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
				Spec: corev1.PodSpec{NodeName: "w1", Containers: []corev1.Container{{Name: "app", Image: tt.image}}},
				Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: tt.image,
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "` + tt.image + `"`}}}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p},
				Events: []corev1.Event{{InvolvedObject: corev1.ObjectReference{UID: "p1"}, Reason: "Failed", Message: tt.message, Count: 7}}}
			f := ruletest.Root(ruletest.Run(ImagePull, b, now))
			if f == nil || f.Category != tt.want {
				t.Fatalf("finding %+v, want %q", f, tt.want)
			}
			if !strings.Contains(f.Culprit, tt.host) || !strings.Contains(f.Culprit, "server gave HTTP response to HTTPS client") {
				t.Errorf("culprit %q does not name %s and the runtime's words", f.Culprit, tt.host)
			}
			if len(f.Actions) == 0 || !strings.Contains(f.Actions[0].Description, tt.fix) {
				t.Errorf("fix %+v does not say %q", f.Actions, tt.fix)
			}
		})
	}
}

// TestImagePullInspectErrorOutsideShortName: an ImageInspectError the pull
// classes do not read is the runtime's, not a pull failure.
func TestImagePullInspectErrorOutsideShortName(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "shop/api:1",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImageInspectError", Message: `Failed to inspect image "shop/api:1": rpc error: code = DeadlineExceeded desc = context deadline exceeded`}}}}}}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}}
	if fs := ruletest.Run(ImagePull, b, time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)); len(fs) != 0 {
		t.Fatalf("findings %+v", fs)
	}
}
