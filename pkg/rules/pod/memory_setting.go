package pod

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// runtimeKind is the runtime whose memory ceiling a setting sizes.
type runtimeKind string

const (
	runtimeJVM  runtimeKind = "JVM heap"
	runtimeNode runtimeKind = "Node.js old-space heap"
	runtimeGo   runtimeKind = "Go soft memory limit"
)

// memorySetting is a runtime's own memory ceiling found in a container's
// literal env values, command or args.
type memorySetting struct {
	Runtime runtimeKind
	Text    string // "-Xmx512m"
	Where   string // "env JAVA_OPTS", "args"
	Bytes   int64
}

var (
	// -Xmx512m, -XX:MaxHeapSize=2g (k, m, g suffixes; none is bytes).
	jvmHeap = regexp.MustCompile(`(?i)(?:^|\s)(-Xmx|-XX:MaxHeapSize=)(\d+)([kmgt]?)(?:\s|$)`)
	// --max-old-space-size=4096 (MiB).
	nodeHeap = regexp.MustCompile(`--max[-_]old[-_]space[-_]size=(\d+)`)
)

// memorySettings lists the runtime memory ceilings ctr sets for itself.
func memorySettings(ctr *corev1.Container) []memorySetting {
	var out []memorySetting
	scan := func(text, where string) {
		for _, m := range jvmHeap.FindAllStringSubmatch(text, -1) {
			if n, err := strconv.ParseInt(m[2], 10, 64); err == nil {
				out = append(out, memorySetting{runtimeJVM, strings.TrimSpace(m[1] + m[2] + m[3]), where, n * unitBytes(m[3])})
			}
		}
		for _, m := range nodeHeap.FindAllStringSubmatch(text, -1) {
			if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
				out = append(out, memorySetting{runtimeNode, m[0], where, n << 20})
			}
		}
	}
	for _, e := range ctr.Env {
		if e.Value == "" {
			continue
		}
		if e.Name == "GOMEMLIMIT" {
			if q, err := resource.ParseQuantity(strings.TrimSuffix(strings.TrimSuffix(e.Value, "B"), "i") + iSuffix(e.Value)); err == nil {
				out = append(out, memorySetting{runtimeGo, "GOMEMLIMIT=" + e.Value, "env GOMEMLIMIT", q.Value()})
			}
			continue
		}
		scan(e.Value, "env "+e.Name)
	}
	scan(strings.Join(ctr.Command, " "), "command")
	scan(strings.Join(ctr.Args, " "), "args")
	return out
}

// iSuffix turns GOMEMLIMIT's KiB/MiB/GiB into a Quantity's Ki/Mi/Gi suffix.
func iSuffix(v string) string {
	if strings.HasSuffix(v, "iB") {
		return "i"
	}
	return ""
}

func unitBytes(suffix string) int64 {
	switch strings.ToLower(suffix) {
	case "k":
		return 1 << 10
	case "m":
		return 1 << 20
	case "g":
		return 1 << 30
	case "t":
		return 1 << 40
	}
	return 1
}

// settingAtLimit is the first setting of ctr that lets the runtime alone
// use the whole memory limit, or nil: with the heap (or soft limit) at or
// above it, what the runtime needs beside the heap (metaspace, thread
// stacks, buffers) has no room and the kernel kills the container.
func settingAtLimit(p *corev1.Pod, ctr *corev1.Container) *memorySetting {
	q, ok := limitOf(p, ctr.Name)
	if !ok {
		return nil
	}
	for _, s := range memorySettings(ctr) {
		if s.Bytes >= q.Value() {
			return &s
		}
	}
	return nil
}

// containerSpec is the spec of the named container (init containers too).
func containerSpec(p *corev1.Pod, name string) *corev1.Container {
	for _, list := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

func (s memorySetting) String() string {
	return fmt.Sprintf("%s %s (%s)", s.Runtime, s.Text, s.Where)
}
