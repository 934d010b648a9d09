package kube

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

func PodRef(p *corev1.Pod) string { return "pod/" + p.Name }

func NSFlag(p *corev1.Pod) string { return "-n " + p.Namespace }

func StatusCmd(p *corev1.Pod, container, field string) string {
	return fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.status.containerStatuses[?(@.name=="%s")].%s}'`, p.Name, NSFlag(p), container, field)
}

func LogsCmd(p *corev1.Pod, container string, previous bool) string {
	prev := ""
	if previous {
		prev = " --previous"
	}
	return fmt.Sprintf("kubectl logs %s %s -c %s%s --tail=50", p.Name, NSFlag(p), container, prev)
}

// RunCronJobNow starts a run of a CronJob outside its schedule.
func RunCronJobNow(name, ns string) string {
	return fmt.Sprintf("kubectl create job %s-manual-$(date +%%s) -n %s --from=cronjob/%s", name, ns, name)
}

func Instance(previous bool) string {
	if previous {
		return "previous"
	}
	return "current"
}

// SelectorString renders a selector the way kubectl -l takes it, sorted.
func SelectorString(sel map[string]string) string {
	parts := make([]string, 0, len(sel))
	for _, k := range SortedKeys(sel) {
		parts = append(parts, k+"="+sel[k])
	}
	return strings.Join(parts, ",")
}
