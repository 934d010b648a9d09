package pod

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// deviceFault is why the kubelet's device manager could not give a pod the
// devices it requests (the category refinement under
// Node/Rejected/UnexpectedAdmissionError).
type deviceFault string

const (
	// The device manager counts fewer free healthy devices than requested.
	deviceUnavailable deviceFault = "DevicesUnavailable"
	// Every device of the resource is reported unhealthy.
	deviceUnhealthy deviceFault = "DevicesUnhealthy"
	// No device plugin serves the resource on the node (any more).
	deviceUnregistered deviceFault = "PluginNotRegistered"
	// The device plugin's own call failed: its words are the cause.
	devicePluginFailed deviceFault = "DevicePlugin"
)

// allocateRe is the kubelet's wrapping of a device-allocation error at
// admission: "Allocate failed due to %v, which is unexpected"
// (https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/cm/admission/errors.go)
// and "Update plugin resources failed due to %v, which is unexpected."
// (pkg/kubelet/lifecycle/predicate.go in the same repository).
var allocateRe = regexp.MustCompile(`^(?:Allocate|Update plugin resources) failed due to (?P<err>.*?),? which is unexpected\.?$`)

// deviceFaults read the error inside allocateRe, in order. The kubelet's
// own wordings are pkg/kubelet/cm/devicemanager/manager.go's; anything
// else came back from the device plugin's gRPC call.
var deviceFaults = []struct {
	fault deviceFault
	re    *regexp.Regexp
	// what: the fault in words, %s = the resource.
	what, mech, fix string
}{
	// https://github.com/kubernetes/kubernetes/issues/130145 (NVIDIA, stale
	// allocations) and https://github.com/Project-HAMi/HAMi/issues/596.
	{deviceUnavailable, regexp.MustCompile(`requested number of devices unavailable for (?P<res>[^\s.]+(?:\.[^\s.]+)*)\. Requested: ?(?P<req>\d+), Available: ?(?P<avail>\d+)`),
		"its device manager had fewer free healthy %s devices than the pod requests",
		"The scheduler counts the node's allocatable devices, which the node advertises; the kubelet's device manager hands out only devices its device plugin reports healthy and that no pod it tracks still holds. When those differ (devices gone unhealthy, allocations of force-deleted pods the kubelet still counts, a plugin that re-registered with fewer devices) the scheduler keeps placing pods the kubelet then rejects.",
		"Then check the device plugin's pod and log on the node and what its devices report; restarting the kubelet resets the device manager's allocations when they are stale"},
	// https://github.com/trueforge-org/truecharts/issues/19201 (amd.com/gpu)
	{deviceUnhealthy, regexp.MustCompile(`(?:no healthy devices present|previously allocated devices are no longer healthy); cannot allocate unhealthy devices (?P<res>\S+)`),
		"every %s device it has is reported unhealthy by the device plugin",
		"The device plugin marks devices unhealthy (a driver error, a device that fell off the bus); the kubelet refuses to hand them to pods, while the scheduler may still count them.",
		"Then check the devices on the node (the vendor's tool, the driver's kernel log) and the device plugin's log, and uncordon the node once they are repaired or replaced"},
	{deviceUnregistered, regexp.MustCompile(`cannot allocate unregistered device (?P<res>\S+)|unknown Device Plugin (?P<res>\S+)|endpoint not found in cache for a registered resource: (?P<res>\S+)`),
		"no device plugin serves %s on the node any more",
		"The kubelet allocates extended resources through the device plugin registered for them; this one is not registered (its DaemonSet pod is not running on the node, or restarts), so no device can be given.",
		"Then make the device plugin run on the node (its DaemonSet pod, its log), and uncordon the node once it has registered again"},
	// https://github.com/NVIDIA/k8s-device-plugin/issues/231 (NVIDIA's
	// plugin, "nvml: GPU is lost"), https://github.com/Project-HAMi/HAMi/issues/71
	// (HAMi's plugin gone: code = Unavailable), https://github.com/volcano-sh/devices/issues/17
	// (Volcano's: "failed to find gpu id").
	{devicePluginFailed, regexp.MustCompile(`(?:device plugin (?P<call>\w+) rpc failed with err: )?rpc error: code = (?P<code>\w+) desc = (?P<desc>.*)`),
		"its %s device plugin failed to allocate a device",
		"The kubelet asks the resource's device plugin to allocate devices when it admits the pod; the plugin's call failed, so the kubelet rejected the pod. The scheduler still counts the node's advertised devices and keeps placing pods there, each rejected the same way.",
		"Then fix the device or the device plugin on the node (the plugin's words above, its pod's log), and uncordon the node once pods are admitted there again"},
}

// deviceMeanings are device errors whose meaning the plugin's words do not
// say themselves.
var deviceMeanings = []struct {
	re      *regexp.Regexp
	meaning string
}{
	// nvidia-smi on such a node: "GPU is lost. Reboot the system to recover
	// this GPU" (https://github.com/NVIDIA/k8s-device-plugin/issues/231).
	{regexp.MustCompile(`(?i)GPU is lost`), "the NVIDIA driver lost contact with a GPU (it fell off the bus); only a reboot of the node recovers it, and until then the plugin cannot list the node's devices, so every GPU of the node is unallocatable"},
	// gRPC's Unavailable: the kubelet's call reached no plugin
	// (https://github.com/Project-HAMi/HAMi/issues/71).
	{regexp.MustCompile(`code = Unavailable`), "the device plugin did not answer the kubelet's call (gRPC Unavailable: its process exited or is restarting)"},
}

// deviceRejection is a device-allocation admission failure read.
type deviceRejection struct {
	fault         deviceFault
	resource      string // nvidia.com/gpu
	words         string // the innermost error: the plugin's or the kubelet's
	what, meaning string
	mech, fix     string
}

// readDeviceRejection reads an UnexpectedAdmissionError's message; ok is
// false when it is not a device allocation.
func readDeviceRejection(p *corev1.Pod, msg string) (deviceRejection, bool) {
	m, ok := submatch.Find(allocateRe, msg)
	if !ok {
		return deviceRejection{}, false
	}
	inner := m.Get("err")
	r := deviceRejection{words: inner, resource: extendedResource(p)}
	for _, row := range deviceFaults {
		dm, ok := submatch.Find(row.re, inner)
		if !ok {
			continue
		}
		r.fault, r.mech, r.fix = row.fault, row.mech, row.fix
		if slices.Contains(row.re.SubexpNames(), "res") && dm.Get("res") != "" {
			r.resource = dm.Get("res")
		}
		if row.fault == devicePluginFailed {
			r.words = dm.Get("desc")
		}
		r.what = fmt.Sprintf(row.what, r.resource)
		break
	}
	if r.fault == "" {
		r.fault, r.what = devicePluginFailed, fmt.Sprintf("the device allocation for %s failed", r.resource)
		r.mech, r.fix = deviceFaults[len(deviceFaults)-1].mech, deviceFaults[len(deviceFaults)-1].fix
	}
	for _, dm := range deviceMeanings {
		if dm.re.MatchString(inner) {
			r.meaning = dm.meaning
			break
		}
	}
	return r, true
}

// extendedResource is the first device resource the pod's containers
// request (a name with a domain: nvidia.com/gpu), or "device" when none.
func extendedResource(p *corev1.Pod) string {
	for _, ctr := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		for _, l := range []corev1.ResourceList{ctr.Resources.Limits, ctr.Resources.Requests} {
			for name := range l {
				if n := string(name); strings.Contains(n, "/") && !strings.HasPrefix(n, "hugepages-") {
					return n
				}
			}
		}
	}
	return "device"
}

// unexpectedAdmission is the kubelet's reason for an admission that failed
// in a resource manager (pkg/kubelet/lifecycle/predicate.go
// UnexpectedAdmissionError): a device plugin's allocation, most often.
const unexpectedAdmission = "UnexpectedAdmissionError"

// deviceFinding rewrites a rejection finding for a failed device
// allocation: the node's device or its plugin is the cause, in the
// plugin's own words, with the node's advertised count that keeps the
// scheduler sending pods there.
func deviceFinding(c *rule.Pass, p *corev1.Pod, d deviceRejection, f *rule.Finding) {
	node := kube.OrDash(p.Spec.NodeName)
	f.Category = f.Category.Sub(string(d.fault))
	f.Title = fmt.Sprintf("the kubelet on node %s rejected the pod (%s): %s: %s", node, unexpectedAdmission, d.what, d.words)
	f.Hypothesis = fmt.Sprintf("Node %s cannot allocate %s to pod %s: %s", node, d.resource, p.Name, d.words)
	f.Summary = fmt.Sprintf("Pod %s never started: the kubelet on node %s rejected it at admission because %s: %s.", p.Name, node, d.what, d.words)
	f.Mechanism = d.mech
	if d.meaning != "" {
		f.Mechanism += " Here " + d.meaning + "."
	}
	f.Culprit = fmt.Sprintf("node/%s %s (device plugin allocation): %s", node, d.resource, d.words)
	if n := c.B.Node(p.Spec.NodeName); n != nil {
		if q, ok := n.Status.Allocatable[corev1.ResourceName(d.resource)]; ok && !q.IsZero() {
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Node %s advertises allocatable %s: %s (capacity %s)", node, d.resource, q.String(), kube.OrDash(quantity(n.Status.Capacity, d.resource))),
				fmt.Sprintf("node/%s .status.allocatable", node),
				fmt.Sprintf(`kubectl get node %s -o jsonpath='{.status.allocatable}'`, node)))
			f.Contributing = append(f.Contributing, fmt.Sprintf("Node %s still advertises %s %s to the scheduler, so pods requesting it keep being placed there and rejected.", node, q.String(), d.resource))
		}
	}
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: fmt.Sprintf("Cordon node %s so pods requesting %s go to other nodes. %s.", node, d.resource, d.fix),
			Commands: []string{fmt.Sprintf("kubectl cordon %s", node),
				fmt.Sprintf("kubectl get pods -A -o wide --field-selector spec.nodeName=%s | grep -i -e device -e plugin -e gpu", node)},
			Risk: "cordoning keeps every new pod off the node; pods running there stay"},
		{Kind: report.Check, Description: fmt.Sprintf("See what node %s reports for %s and which pods hold it.", node, d.resource),
			Commands: []string{fmt.Sprintf("kubectl describe node %s", node)}},
	}
}

func quantity(l corev1.ResourceList, name string) string {
	if q, ok := l[corev1.ResourceName(name)]; ok {
		return q.String()
	}
	return ""
}
