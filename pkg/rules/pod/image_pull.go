package pod

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// ImagePull is the rule pod/image-pull.
var ImagePull = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/image-pull",
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "An image the kubelet cannot pull: wrong name or tag, missing credentials, unreachable registry.",
	},
	Check: checkImagePull,
}

// pullClass is why the kubelet cannot pull an image: the category suffix
// ("ImagePull/NotFound"); pullUnknown when no row recognises the error.
type pullClass string

const (
	pullNeverPull            pullClass = "NeverPull"
	pullNoSpace              pullClass = "NoSpace"
	pullInvalidName          pullClass = "InvalidName"
	pullRateLimited          pullClass = "RateLimited"
	pullAuth                 pullClass = "Auth"
	pullPlatform             pullClass = "Platform"
	pullNotFound             pullClass = "NotFound"
	pullUntrustedCertificate pullClass = "UntrustedCertificate"
	pullPlainHTTP            pullClass = "PlainHTTP"
	pullShortName            pullClass = "ShortName"
	pullUnreachable          pullClass = "Unreachable"
	pullUnknown              pullClass = "Unknown"
)

// pullFailure is one row of the image-pull classification table.
type pullFailure struct {
	Class pullClass
	re    *regexp.Regexp
	Title string // with %s = image
	Mech  string
	Fix   string
	Conf  rule.Confidence
	// Quote: the runtime's own words (pullDetailRe) say more than the
	// mechanism, which quotes them.
	Quote bool
}

// pullFailures are matched against the kubelet's pull error, in order.
var pullFailures = []pullFailure{
	// Not a pull failure at all: with imagePullPolicy Never the kubelet only
	// looks for the image on the node and never asks a registry.
	{pullNeverPull, regexp.MustCompile(`(?i)ErrImageNeverPull|is not present with pull policy of Never`),
		"image %s is not on the node and imagePullPolicy Never forbids pulling it",
		"With imagePullPolicy: Never the kubelet never contacts a registry; it only looks for the image in the node's container runtime, which does not have it (ErrImageNeverPull).",
		"Load the image onto the node (pre-pull it, or import it into the container runtime), or set imagePullPolicy to IfNotPresent so the kubelet pulls it.", rule.Definitive, false},
	// Not the registry's fault either: the layers arrived, but the node's
	// image filesystem has no room to unpack them.
	{pullNoSpace, regexp.MustCompile(`(?i)no space left on device`),
		"node %[2]s has no space left on its image filesystem to unpack image %[1]s",
		"The runtime downloaded the image's layers but could not write them to the node's image filesystem (containerd's /var/lib/containerd, Docker's /var/lib/docker): a large image on a small disk, or images and containers piling up faster than the kubelet's image garbage collection frees them. Every pull onto that node fails until space is freed.",
		"Free space on the node's image filesystem (unused images: crictl rmi --prune on the node; the kubelet's image GC starts above imageGCHighThresholdPercent), grow the node's disk, or move the pod to a node with room.", rule.Strong, true},
	{pullInvalidName, regexp.MustCompile(`(?i)InvalidImageName|invalid reference format|couldn't parse image (reference|name)`),
		"image reference %s is not a valid image name",
		"The kubelet cannot parse the image reference, so it never tries to pull it.",
		"Correct the image reference in the pod template (registry/repository:tag or @sha256:digest, lower-case repository).", rule.Definitive, false},
	// Before Auth: Docker Hub's 429 advises "authenticating and upgrading".
	{pullRateLimited, regexp.MustCompile(`(?i)toomanyrequests|429 Too Many Requests|pull rate limit`),
		"the registry refuses to serve image %s: its pull rate limit is reached (429 Too Many Requests)",
		"The registry limits how many pulls a client (anonymous pulls: per source IP, so per node or NAT gateway) may make in a time window; past it every pull gets 429 Too Many Requests until the window passes.",
		"Pull with credentials of an account with a higher limit (an imagePullSecret), or through a registry mirror or pull-through cache; pulls succeed again once the window passes.", rule.Strong, false},
	{pullAuth, regexp.MustCompile(`(?i)unauthorized|authentication required|no basic auth credentials|403 forbidden|insufficient_scope|access denied|denied: requested access|pull access denied`),
		"the registry refuses to serve image %s without valid credentials",
		"The registry answered the pull with an authentication/authorization error: the node has no credentials for it, or the pod's imagePullSecrets are missing, wrong or expired.",
		"Create or fix the pull secret for this registry and reference it in the pod's imagePullSecrets (or its ServiceAccount's).", rule.High, false},
	// Before NotFound: containerd ends this one with ": not found" too, but
	// the image exists, only not for the node's OS/architecture.
	{pullPlatform, regexp.MustCompile(`(?i)no match(ing manifest)? for platform|no matching manifest for \S+ in the manifest list`),
		"image %s has no variant for the node's platform (OS/CPU architecture)",
		"The tag exists, but its manifest (or manifest list) holds no image for the node's OS/architecture, e.g. an amd64-only image on an arm64 node, so the runtime has nothing to pull.",
		"Use a tag built for the node's architecture (a multi-arch image: docker buildx --platform), or schedule the pod onto nodes of the image's architecture (nodeSelector kubernetes.io/arch).", rule.Strong, true},
	{pullNotFound, regexp.MustCompile(`(?i)manifest unknown|manifest for \S+ not found|not found: manifest|repository does not exist|name unknown|: not found|code = NotFound|404 Not Found`),
		"image %s does not exist in its registry (wrong tag or repository)",
		"The registry has no manifest for this repository and tag: the tag was never pushed, was deleted, or the name is misspelled.",
		"Point the pod template at a tag that exists (check the registry or your CI's last pushed tag), or push the missing tag.", rule.Strong, false},
	// A registry that speaks plain HTTP to a runtime that was not told so:
	// the runtime's TLS hello is answered with an HTTP response. Go's
	// net/http wording, the same in containerd ("failed to do request: Head
	// https://…"), CRI-O ("pinging container registry …: Get \"https://…/v2/\"")
	// and dockerd ("Error response from daemon: Get https://…/v2/").
	{pullPlainHTTP, regexp.MustCompile(`(?i)server gave HTTP response to HTTPS client`),
		"registry %[3]s answers in plain HTTP, but the node's container runtime pulls image %[1]s from it over HTTPS",
		"The runtime pulls over HTTPS unless its configuration names the registry as plain-HTTP (insecure); this registry serves plain HTTP, so the runtime's TLS request gets an HTTP answer and the pull fails before any image is asked for. Every node whose runtime lacks that setting fails the same way.",
		"Configure registry %[1]s as a plain-HTTP (insecure) registry in the container runtime on every node, then restart the runtime: containerd 1.5+ /etc/containerd/certs.d/%[1]s/hosts.toml with server = \"http://%[1]s\" and [host.\"http://%[1]s\"] (config_path set for the CRI registry; kind: containerdConfigPatches); CRI-O /etc/containers/registries.conf [[registry]] location = \"%[1]s\" insecure = true; Docker /etc/docker/daemon.json \"insecure-registries\": [\"%[1]s\"]. Or serve the registry over TLS with a certificate the nodes trust.", rule.Strong, true},
	// Before Unreachable: the registry answered, but the node's runtime
	// does not trust its certificate (a private CA not installed on nodes),
	// it names another host or no IP SAN for an address
	// (https://github.com/cri-o/cri-o/issues/2193), or it has expired.
	{pullUntrustedCertificate, regexp.MustCompile(`(?i)x509: certificate signed by unknown authority|x509: certificate is not (valid|trusted)|x509: certificate is valid for|x509: cannot validate certificate for|x509: certificate has expired|tls: failed to verify certificate`),
		"the node's container runtime does not trust the TLS certificate of the registry serving image %s",
		"The runtime reached the registry, but rejected its certificate: it is signed by a CA the node does not trust (a private or self-signed registry CA that is not installed in the runtime's trust store), names another host (or, for a registry addressed by IP, holds no IP SAN), or has expired.",
		"Install the registry's CA certificate for the container runtime on every node (containerd: /etc/containerd/certs.d/<registry>/ca.crt; Docker: /etc/docker/certs.d/<registry>/ca.crt), or serve the registry with a valid certificate from a CA the nodes trust, naming the host (or IP) the image reference uses.", rule.Strong, true},
	// CRI-O (containers/image) resolves a reference without a registry
	// ("nginx", "kicbase/echo-server:1.0") through registries.conf only:
	// with no alias and no unqualified-search registry it refuses it
	// (https://github.com/kubernetes/minikube/pull/19395), and since CRI-O
	// 1.34 a short name that several search registries could serve is
	// refused as ambiguous (https://github.com/k8snetworkplumbingwg/multus-cni/issues/1471).
	// containerd and dockerd complete it to docker.io themselves.
	{pullShortName, regexp.MustCompile(`(?i)short-name "[^"]*" did not resolve to an alias|short name mode is enforcing|no registries configured while trying to pull an unqualified image`),
		"image reference %s names no registry and the node's runtime (CRI-O) does not resolve short names to one",
		"The image reference has no registry host. containerd and Docker complete it to docker.io; CRI-O resolves it only through /etc/containers/registries.conf (an alias, or unqualified-search registries), and refuses it when none is configured or, with short-name-mode enforcing, when several search registries could serve it.",
		"Fully qualify the image in the pod template (%[1]s), or add an alias or unqualified-search-registries entry to /etc/containers/registries.conf on the nodes.", rule.Strong, true},
	{pullUnreachable, regexp.MustCompile(`(?i)no such host|i/o timeout|connection refused|network is unreachable|TLS handshake timeout|dial tcp|x509:|certificate signed by unknown authority|context deadline exceeded|server misbehaving`),
		"the node cannot reach the registry serving image %s",
		"The kubelet's pull failed at the network or TLS level before the registry could answer: DNS, firewall/egress policy, proxy, or an untrusted registry certificate.",
		"Check DNS and egress from the node to the registry, the registry's certificate, and any proxy or mirror configuration of the container runtime.", rule.High, false},
}

// pullDetailRe is the runtime's own words for a certificate or platform
// mismatch, quoted in the mechanism so the report names it.
var pullDetailRe = regexp.MustCompile(`(?i)x509: [^"\n]*|tls: failed to verify certificate[^"\n]*|no match(ing manifest)? for platform[^"\n]*|(?:write [^"\n:]*: )?no space left on device|(?:(?:Head|Get) "?https://[^\s"]+"?: )?http: server gave HTTP response to HTTPS client|short-name "[^"]*" did not resolve to an alias and no unqualified-search registries are defined(?: in "[^"]*")?|short name mode is enforcing, but image name \S+ returns ambiguous list|no registries configured while trying to pull an unqualified image`)

// checkImagePull: a container stuck pulling its image, split by why.
func checkImagePull(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		for _, cs := range kube.AllStatuses(p) {
			st := cs.Status
			w := st.State.Waiting
			if w == nil || (w.Reason != "ImagePullBackOff" && w.Reason != "ErrImagePull" && w.Reason != "InvalidImageName" && w.Reason != "ErrImageNeverPull" && w.Reason != "ImageInspectError") {
				continue
			}
			image := st.Image
			if spec := kube.SpecOf(p, st.Name); spec != nil {
				image = spec.Image
			}
			evidence := []string{c.Evidence(
				fmt.Sprintf("Container %s is waiting: %s: %s", st.Name, w.Reason, w.Message),
				fmt.Sprintf("%s .status.containerStatuses[%s].state.waiting", kube.PodRef(p), st.Name),
				kube.StatusCmd(p, st.Name, "state.waiting"))}
			// The pull error itself is in the kubelet's Failed event; the
			// waiting message often only says "Back-off pulling image".
			text := w.Reason + " " + w.Message
			for _, e := range c.B.EventsFor(string(p.UID)) {
				if e.Reason == "Failed" && strings.Contains(e.Message, image) || e.Reason == "InspectFailed" || e.Reason == "ErrImageNeverPull" {
					text += " " + e.Message
					evidence = append(evidence, c.Evidence(
						fmt.Sprintf("Event %s ×%d: %s", e.Reason, max(e.Count, 1), e.Message),
						fmt.Sprintf("event on %s", kube.PodRef(p)),
						fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", kube.NSFlag(p), p.Name, e.Reason)))
				}
			}
			// CRI-O refuses a short name already when the kubelet inspects
			// the image (ImageInspectError); other inspection errors are
			// the runtime's, not the pull's.
			if w.Reason == "ImageInspectError" && classify(text) != pullShortName {
				continue
			}
			out = append(out, pullFinding(c, p, st, image, text, evidence))
		}
	}
	return out
}

// pullRow is the first row of pullFailures that reads text, nil if none.
func pullRow(text string) *pullFailure {
	for i := range pullFailures {
		if pullFailures[i].re.MatchString(text) {
			return &pullFailures[i]
		}
	}
	return nil
}

// classify is the class of the pull error text.
func classify(text string) pullClass {
	if r := pullRow(text); r != nil {
		return r.Class
	}
	return pullUnknown
}

func pullFinding(c *rule.Pass, p *corev1.Pod, st corev1.ContainerStatus, image, text string, evidence []string) rule.Finding {
	kind, owner := kube.OwnerName(c, p)
	f := rule.Finding{
		Category: rule.ImagePull, Verdict: report.Validated, Current: true, Strength: rule.Explained,
		Subject: p.Name + "/" + st.Name, Evidence: evidence,
		Culprit: fmt.Sprintf("%s container %s image %s", kube.PodRef(p), st.Name, image),
	}
	match := pullRow(text)
	setImage := fmt.Sprintf("kubectl set image %s/%s %s %s=<registry/repository:existing-tag>", kind, owner, kube.NSFlag(p), st.Name)
	if match == nil {
		f.Category = f.Category.Sub(string(pullUnknown))
		f.Hypothesis = fmt.Sprintf("Image %s cannot be pulled", image)
		f.Title = fmt.Sprintf("container %s cannot pull image %s", st.Name, image)
		f.Summary = fmt.Sprintf("The kubelet cannot pull image %s for container %s of pod %s; the error does not say whether the tag, the credentials or the network is at fault.", image, st.Name, p.Name)
		f.Mechanism = "The kubelet retries the pull with growing back-off (ImagePullBackOff); the container cannot start until the pull succeeds."
		f.Confidence = rule.Moderate
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the full pull error in the pod's events.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p))}}}
		return f
	}
	f.Category = f.Category.Sub(string(match.Class))
	why := fmt.Sprintf(match.Title, image)
	fixText := match.Fix
	intercepted := false // a plain HTTP answer from between the node and a public registry
	switch match.Class {
	case pullNoSpace:
		why = fmt.Sprintf(match.Title, image, kube.OrDash(p.Spec.NodeName))
		f.Culprit = fmt.Sprintf("node/%s image filesystem full (no space left on device) pulling image %s for %s", kube.OrDash(p.Spec.NodeName), image, kube.PodRef(p))
	case pullPlainHTTP:
		host := plainHTTPHost(text, image)
		why = fmt.Sprintf(match.Title, image, "", host)
		fixText = fmt.Sprintf(match.Fix, host)
		f.Culprit = fmt.Sprintf("registry %s serves plain HTTP, not configured as insecure in the nodes' container runtime (http: server gave HTTP response to HTTPS client) for image %s of %s", host, image, kube.PodRef(p))
		if servedOverTLS(host) {
			// A public registry serves only HTTPS: the plain answer comes
			// from something between the node and it.
			intercepted = true
			f.Category = f.Category.Sub("Intercepted")
			why = fmt.Sprintf("something between the node and %s (a proxy, a captive portal, a DNS entry pointing elsewhere) answers the runtime's HTTPS request in plain HTTP", host)
			fixText = fmt.Sprintf("Find what answers for %s from the node: the container runtime's HTTP_PROXY/HTTPS_PROXY settings (its systemd unit's Environment), a transparent proxy or captive portal on the node's network, or /etc/hosts and DNS entries for %[1]s; the public registry itself only speaks HTTPS, so do not configure it as insecure.", host)
			f.Culprit = fmt.Sprintf("the path from node/%s to %s: a plain HTTP answer to the runtime's HTTPS request (http: server gave HTTP response to HTTPS client) pulling image %s for %s", kube.OrDash(p.Spec.NodeName), host, image, kube.PodRef(p))
		}
	case pullPlatform:
		if pf, ok := nodePlatform(c, p); ok {
			why = fmt.Sprintf("image %s has no variant for node %s's platform (%s)", image, pf.Node, pf.Platform)
			f.Culprit = fmt.Sprintf("%s container %s image %s on node %s (%s)%s", kube.PodRef(p), st.Name, image, pf.Node, pf.Platform, pf.Unpinned)
			f.Evidence = append(f.Evidence, pf.Evidence(c))
			if pf.Fix != "" {
				fixText = pf.Fix
			}
		}
	case pullShortName:
		fixText = fmt.Sprintf(match.Fix, qualified(image))
		f.Culprit = fmt.Sprintf("%s container %s image %s (no registry host; the runtime resolves no short name)", kube.PodRef(p), st.Name, image)
	}
	f.Title = fmt.Sprintf("container %s cannot start: %s", st.Name, why)
	f.Hypothesis = fmt.Sprintf("Image pull fails because %s", why)
	f.Summary = fmt.Sprintf("Container %s of pod %s cannot start because %s.", st.Name, p.Name, why)
	f.Mechanism = match.Mech + " The kubelet retries with growing back-off (ImagePullBackOff)."
	if m := pullDetailRe.FindString(text); m != "" && match.Quote {
		f.Mechanism = match.Mech + " The runtime said: " + m + ". The kubelet retries with growing back-off (ImagePullBackOff)."
	}
	if intercepted {
		f.Mechanism = "The runtime asked the registry over HTTPS and got a plain HTTP answer; a public registry serves only HTTPS, so the answer came from elsewhere: a proxy the runtime is configured to use, a transparent proxy or captive portal on the node's network, or a name resolved to another host. The runtime said: " + pullDetailRe.FindString(text) + ". The kubelet retries with growing back-off (ImagePullBackOff)."
	}
	if match.Class == pullNeverPull {
		f.Mechanism = match.Mech + " The kubelet checks again at every pod sync; the container cannot start until the image is there."
	}
	f.Confidence = match.Conf
	fix := report.Action{Kind: report.Immediate, Description: fixText}
	switch match.Class {
	case pullShortName:
		set := fmt.Sprintf("kubectl set image %s/%s %s %s=%s", kind, owner, kube.NSFlag(p), st.Name, qualified(image))
		fix.Commands = kube.TemplateCommands(kind, owner, p.Namespace, []string{set}, fmt.Sprintf("set the image of container %s to %s", st.Name, qualified(image)), kube.PodRun(p))
		fix.Risk = kube.PendingTemplateRisk(kind, "starts a rollout with the qualified image (the same image, if docker.io is where it was meant to come from)")
	case pullPlainHTTP:
		node := kube.OrDash(p.Spec.NodeName)
		fix.Commands = []string{fmt.Sprintf("kubectl get node %s -o jsonpath='{.status.nodeInfo.containerRuntimeVersion}'", node),
			fmt.Sprintf("kubectl debug node/%s -it --image=busybox:1.36 -- chroot /host sh -c 'ls /etc/containerd/certs.d/ /etc/containers/registries.conf.d/ 2>/dev/null; cat /etc/docker/daemon.json 2>/dev/null'", node)}
		fix.Risk = "restarting the container runtime on a node briefly stops it from starting containers (running ones are kept); plain HTTP sends image layers and any registry credentials unencrypted"
		if intercepted {
			fix.Commands[1] = fmt.Sprintf("kubectl debug node/%s -it --image=busybox:1.36 -- chroot /host sh -c 'systemctl show containerd crio docker --property=Environment 2>/dev/null; grep -i %s /etc/hosts'", node, strings.SplitN(plainHTTPHost(text, image), ":", 2)[0])
			fix.Risk = "changing the runtime's proxy settings needs a runtime restart, which briefly stops it from starting containers"
		}
	case pullNotFound, pullInvalidName:
		fix.Commands = kube.TemplateCommands(kind, owner, p.Namespace, []string{setImage}, fmt.Sprintf("set the image of container %s to <registry/repository:existing-tag>", st.Name), kube.PodRun(p))
		fix.Risk = kube.PendingTemplateRisk(kind, "starts a rollout with the new image")
	case pullAuth:
		f.Actions = []report.Action{pullSecretFinding(c, p, image, &f, fix, kind, owner)}
		if deniedOrMissingRe.MatchString(text) && strings.HasSuffix(string(f.Category), "/NoPullSecret") && publicRegistry(registryOf(image)) {
			notFoundOrPrivate(p, st, image, &f, setImage, kind, owner)
		}
		return f
	case pullNoSpace:
		node := kube.OrDash(p.Spec.NodeName)
		fix.Commands = []string{fmt.Sprintf("kubectl describe node %s", node),
			fmt.Sprintf("kubectl get --raw /api/v1/nodes/%s/proxy/stats/summary | jq .node.runtime.imageFs", node)}
		fix.Risk = "pruning images on the node makes the next pods there pull them again"
	case pullUnreachable, pullRateLimited, pullUntrustedCertificate, pullPlatform:
		fix.Commands = []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p))}
	case pullNeverPull:
		fix.Commands = kube.TemplateCommands(kind, owner, p.Namespace,
			[]string{fmt.Sprintf(`kubectl patch %s/%s %s -p '%s'`, kind, owner, kube.NSFlag(p), kube.Workload{Kind: kind, Name: owner, Namespace: p.Namespace}.PatchTemplate(fmt.Sprintf(`{"containers":[{"name":%q,"imagePullPolicy":"IfNotPresent"}]}`, st.Name)))},
			fmt.Sprintf("set imagePullPolicy: IfNotPresent on container %s", st.Name), kube.PodRun(p))
		fix.Risk = kube.PendingTemplateRisk(kind, "starts a rollout that pulls the image from its registry")
		if kind == "pod" { // a pod's containers are immutable: replace it
			fix.Commands = []string{
				fmt.Sprintf("kubectl get pod %s %s -o yaml > %s.yaml   # set imagePullPolicy: IfNotPresent on container %s", p.Name, kube.NSFlag(p), p.Name, st.Name),
				fmt.Sprintf("kubectl replace --force -f %s.yaml", p.Name)}
			fix.Risk = "deletes and recreates the pod"
		}
	}
	f.Actions = []report.Action{fix}
	return f
}

// registryOf returns the registry host of an image reference (docker.io when
// none is named).
func registryOf(image string) string {
	first, _, found := strings.Cut(image, "/")
	if found && (strings.ContainsAny(first, ".:") || first == "localhost") {
		return first
	}
	return "docker.io"
}

// unableSecretsRe reads the kubelet's FailedToRetrieveImagePullSecret event:
// the pod names pull secrets that do not exist.
var unableSecretsRe = regexp.MustCompile(`Unable to retrieve some image pull secrets \((?P<secrets>[^)]*)\)`)

// pullSecretFinding refines an authentication failure with where the
// credentials should come from: the pod's imagePullSecrets, its
// ServiceAccount's, and whether the kubelet found them. Secrets themselves
// are never read: a Secret the kubelet could not find is known from its
// event, and wrong credentials only from the registry's refusal.
func pullSecretFinding(c *rule.Pass, p *corev1.Pod, image string, f *rule.Finding, fix report.Action, kind, owner string) report.Action {
	podSecrets := secretNames(p.Spec.ImagePullSecrets)
	saName := p.Spec.ServiceAccountName
	if saName == "" {
		saName = "default"
	}
	var sa *corev1.ServiceAccount
	for _, s := range c.B.ServiceAccounts {
		if s.Namespace == p.Namespace && s.Name == saName {
			sa = s
		}
	}
	var saSecrets []string
	if sa != nil {
		saSecrets = secretNames(sa.ImagePullSecrets)
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("ServiceAccount %s has imagePullSecrets: %s", saName, kube.OrDash(strings.Join(saSecrets, ", "))),
			"serviceaccount/"+saName+" .imagePullSecrets",
			fmt.Sprintf("kubectl get serviceaccount %s %s -o jsonpath='{.imagePullSecrets}'", saName, kube.NSFlag(p))))
	}
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod has imagePullSecrets: %s", kube.OrDash(strings.Join(podSecrets, ", "))),
		kube.PodRef(p)+" .spec.imagePullSecrets",
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.imagePullSecrets}'", p.Name, kube.NSFlag(p))))
	var missing []string
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if m, ok := submatch.Find(unableSecretsRe, e.Message); e.Reason == "FailedToRetrieveImagePullSecret" || ok {
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Event %s ×%d: %s", e.Reason, max(e.Count, 1), e.Message),
				fmt.Sprintf("event on %s", kube.PodRef(p)),
				fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", kube.NSFlag(p), p.Name, e.Reason)))
			if ok {
				for _, n := range strings.Split(m.Get("secrets"), ",") {
					if n = strings.Trim(strings.TrimSpace(n), "<>"); n != "" {
						missing = kube.AppendUnique(missing, n)
					}
				}
			}
		}
	}
	create := fmt.Sprintf("kubectl create secret docker-registry %%s %s --docker-server=%s --docker-username=<user> --docker-password=<token>", kube.NSFlag(p), registryOf(image))
	usePod := []string{fmt.Sprintf(`kubectl patch %s/%s %s -p '%s'`, kind, owner, kube.NSFlag(p), kube.Workload{Kind: kind, Name: owner, Namespace: p.Namespace}.PatchTemplate(`{"imagePullSecrets":[{"name":"regcred"}]}`))}
	if kind == "pod" {
		usePod = []string{fmt.Sprintf(`kubectl patch serviceaccount %s %s -p '{"imagePullSecrets":[{"name":"regcred"}]}'   # then recreate pod %s`, saName, kube.NSFlag(p), p.Name)}
	}
	usePod = kube.TemplateCommands(kind, owner, p.Namespace, usePod, "set spec.template.spec.imagePullSecrets: [{name: regcred}]", kube.PodRun(p))
	switch {
	case len(missing) > 0:
		f.Category = rule.ImagePull.Sub(string(pullAuth), "MissingPullSecret")
		f.Confidence = rule.Definitive
		names := strings.Join(missing, ", ")
		f.Title = fmt.Sprintf("container %s cannot pull image %s: its imagePullSecret %s does not exist, so the registry refuses the anonymous pull", f.Subject[strings.Index(f.Subject, "/")+1:], image, names)
		f.Hypothesis = fmt.Sprintf("Image pull fails because pull secret %s does not exist", names)
		f.Summary += fmt.Sprintf(" The pod names pull secret %s, which the kubelet could not find, so it pulled without credentials.", names)
		f.Culprit = fmt.Sprintf("imagePullSecrets %s (Secret not found) for image %s of %s", names, image, kube.PodRef(p))
		f.Contributing = append(f.Contributing, "Secrets are not read by kubectl-triage, by design: that the Secret is missing comes from the kubelet's FailedToRetrieveImagePullSecret event.")
		fix.Description = fmt.Sprintf("Create pull secret %s with credentials for %s in namespace %s (or fix the name the pod references).", missing[0], registryOf(image), p.Namespace)
		fix.Commands = []string{fmt.Sprintf(create, missing[0])}
		fix.Risk = "stores registry credentials in the namespace"
	case len(podSecrets) == 0 && sa != nil && len(saSecrets) == 0:
		f.Category = rule.ImagePull.Sub(string(pullAuth), "NoPullSecret")
		f.Confidence = rule.Strong
		f.Title += "; neither the pod nor its ServiceAccount " + saName + " has an imagePullSecret"
		f.Culprit = fmt.Sprintf("%s .spec.imagePullSecrets (none, and none on serviceaccount %s) for image %s", kube.PodRef(p), saName, image)
		fix.Commands = append([]string{fmt.Sprintf(create, "regcred")}, usePod...)
		fix.Risk = "stores registry credentials in the namespace; " + kube.PendingTemplateRisk(kind, "the patch starts a rollout")
	case len(podSecrets)+len(saSecrets) > 0:
		names := strings.Join(append(podSecrets, saSecrets...), ", ")
		f.Category = rule.ImagePull.Sub(string(pullAuth), "WrongCredentials")
		f.Confidence = rule.Likely
		f.Title += fmt.Sprintf("; the credentials in pull secret %s are refused", names)
		f.Culprit = fmt.Sprintf("imagePullSecrets %s for image %s of %s", names, image, kube.PodRef(p))
		f.Contributing = append(f.Contributing, fmt.Sprintf("Pull secret %s exists (the kubelet did not report it missing) but the registry refuses it: wrong or expired credentials, or credentials for another registry than %s. Secrets are not read by kubectl-triage, by design.", names, registryOf(image)))
		fix.Description = fmt.Sprintf("Recreate pull secret %s with valid credentials for %s.", strings.Split(names, ", ")[0], registryOf(image))
		fix.Commands = []string{fmt.Sprintf("kubectl delete secret %s %s && ", strings.Split(names, ", ")[0], kube.NSFlag(p)) + fmt.Sprintf(create, strings.Split(names, ", ")[0])}
		fix.Risk = "the workload cannot pull between the delete and the create; stores registry credentials in the namespace"
	default:
		f.Contributing = append(f.Contributing, "The pod has no imagePullSecrets; its ServiceAccount was not read, so it may still provide some.")
		fix.Commands = append([]string{fmt.Sprintf(create, "regcred")}, usePod...)
		fix.Risk = "stores registry credentials in the namespace; " + kube.PendingTemplateRisk(kind, "the patch starts a rollout")
	}
	return fix
}

func secretNames(refs []corev1.LocalObjectReference) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out
}

// deniedOrMissingRe is a registry's answer that does not tell a missing
// repository from a private one: dockerd's "pull access denied for X,
// repository does not exist or may require 'docker login'", containerd's
// "pull access denied, repository does not exist or may require
// authorization" (Docker Hub answers both cases alike).
var deniedOrMissingRe = regexp.MustCompile(`(?i)repository does not exist or may require|requested access to the resource is denied`)

// publicRegistry: registries that serve public repositories to anonymous
// pulls. There, an image pulled without any secret was meant to be public;
// an organisation's own registry (registry.example.com) needs credentials as
// a rule, and its refusal most likely means the pull secret is missing.
func publicRegistry(host string) bool {
	switch host {
	case "docker.io", "index.docker.io", "registry-1.docker.io", "registry.k8s.io", "k8s.gcr.io", "gcr.io",
		"quay.io", "ghcr.io", "public.ecr.aws", "mcr.microsoft.com", "registry.gitlab.com", "docker.elastic.co", "nvcr.io":
		return true
	}
	return false
}

// notFoundOrPrivate rewords an anonymous pull the registry refused without
// saying why: with no pull secret anywhere, the repository was meant to be
// public, so the likelier cause is that it does not exist (misspelled,
// renamed or removed); a private repository comes second.
func notFoundOrPrivate(p *corev1.Pod, st corev1.ContainerStatus, image string, f *rule.Finding, setImage, kind, owner string) {
	secretFix := f.Actions[0]
	secretFix.Kind = report.LongTerm
	secretFix.Description = "Only if the repository is private: " + secretFix.Description
	f.Category = rule.ImagePull.Sub("NotFoundOrPrivate")
	f.Confidence = rule.Likely
	f.Title = fmt.Sprintf("container %s cannot start: the registry answers that repository %s does not exist or needs credentials; the pod pulls without any pull secret, so most likely %s does not exist (misspelled, renamed or removed)", st.Name, repositoryOf(image), image)
	f.Hypothesis = fmt.Sprintf("Image pull fails because repository %s does not exist in %s (or is private)", repositoryOf(image), registryOf(image))
	f.Summary = fmt.Sprintf("Container %s of pod %s cannot start: %s refuses to serve %s and says the repository does not exist or requires a login. The pod and its ServiceAccount have no pull secret, so the image was meant to be public: the repository name is most likely wrong or the repository was removed.", st.Name, p.Name, registryOf(image), image)
	f.Mechanism = "A registry answers an anonymous pull of a repository that does not exist the same way as one of a private repository (Docker Hub: \"pull access denied … repository does not exist or may require 'docker login'\"). The kubelet retries with growing back-off (ImagePullBackOff)."
	f.Culprit = fmt.Sprintf("%s container %s image %s (repository %s not found in %s, or private)", kube.PodRef(p), st.Name, image, repositoryOf(image), registryOf(image))
	f.Contributing = append(f.Contributing, "Neither the pod nor its ServiceAccount names an imagePullSecret, so no credentials were offered: a public repository would have been served.")
	use := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Check the image name against the registry and point container %s at a repository and tag that exist (a maintained image for the same tool, or your own copy).", st.Name),
		Commands:    kube.TemplateCommands(kind, owner, p.Namespace, []string{setImage}, fmt.Sprintf("set the image of container %s to <registry/repository:existing-tag>", st.Name), kube.PodRun(p)),
		Risk:        kube.PendingTemplateRisk(kind, "starts a rollout with the new image")}
	check := report.Action{Kind: report.Check, Description: fmt.Sprintf("See whether %s exists and is public, from a machine with a container CLI.", image),
		Commands: []string{fmt.Sprintf("docker manifest inspect %s", image)}}
	f.Actions = []report.Action{use, check, secretFix}
}

// repositoryOf is an image reference without its registry, tag and digest.
func repositoryOf(image string) string {
	repo := image
	if first, rest, ok := strings.Cut(image, "/"); ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
		repo = rest
	}
	if i := strings.Index(repo, "@"); i >= 0 {
		repo = repo[:i]
	}
	if i := strings.LastIndex(repo, ":"); i >= 0 {
		repo = repo[:i]
	}
	return repo
}
