package bundle

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// maxWatchedConfigMaps bounds the ConfigMaps listed for one label-watching
// sidecar: the ones a chart labels for it are a handful.
const maxWatchedConfigMaps = 50

// LabelWatch is a container that copies every ConfigMap carrying a label
// into a folder of a volume it shares with the application: the
// k8s-sidecar convention of the Grafana, Prometheus-rules and similar
// charts (https://github.com/kiwigrid/k8s-sidecar#configuration-environment-variables).
// What the application then reads from the folder comes from those
// ConfigMaps, not from any volume of the pod spec.
type LabelWatch struct {
	Container string
	Selector  labels.Selector
	Folder    string // where the files are written, in the sidecar's filesystem
	Namespace string // the namespace watched; "" when it is not (only) the pod's
}

// String names the watch for a reader: "container grafana-sc-datasources,
// which copies the ConfigMaps labelled grafana_datasource=1 to
// /etc/grafana/provisioning/datasources".
func (w LabelWatch) String() string {
	return fmt.Sprintf("container %s, which copies the ConfigMaps labelled %s to %s", w.Container, w.Selector, w.Folder)
}

// LabelWatchOf reads a container's label watch from its literal
// environment (LABEL, LABEL_VALUE, FOLDER, NAMESPACE, RESOURCE); ok is
// false for any other container.
func LabelWatchOf(ctr *corev1.Container, podNamespace string) (w LabelWatch, ok bool) {
	env := map[string]string{}
	for _, e := range ctr.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	label, folder := env["LABEL"], env["FOLDER"]
	if label == "" || folder == "" {
		return w, false
	}
	if r := strings.ToLower(env["RESOURCE"]); r != "" && r != "configmap" && r != "both" {
		return w, false // Secrets only: never read
	}
	op, values := selection.Exists, []string(nil)
	if v := env["LABEL_VALUE"]; v != "" {
		op, values = selection.Equals, []string{v}
	}
	req, err := labels.NewRequirement(label, op, values)
	if err != nil {
		return w, false
	}
	w = LabelWatch{Container: ctr.Name, Selector: labels.NewSelector().Add(*req), Folder: folder}
	// "ALL" watches every namespace: only the pod's own is read, a
	// cluster-wide list is not this tool's to make.
	if ns := env["NAMESPACE"]; ns == "" || ns == podNamespace || strings.EqualFold(ns, "ALL") {
		w.Namespace = podNamespace
	}
	return w, true
}

// watchedConfigMaps lists, once per selector, the ConfigMaps of the pod's
// namespace that a label-watching sidecar of the pods copies, so that a
// file the application refuses can be traced to the ConfigMap it came
// from (docs/DESIGN.md, "Correlations"). ConfigMaps already fetched by
// name are kept once.
func (c *collector) watchedConfigMaps(ctx context.Context, pods []*corev1.Pod) {
	seen := map[string]bool{}
	for _, p := range pods {
		for _, ctr := range allContainers(p) {
			w, ok := LabelWatchOf(&ctr, p.Namespace)
			if !ok || w.Namespace == "" || seen[w.Namespace+"/"+w.Selector.String()] {
				continue
			}
			seen[w.Namespace+"/"+w.Selector.String()] = true
			c.count()
			list, err := c.cs.CoreV1().ConfigMaps(w.Namespace).List(ctx, metav1.ListOptions{LabelSelector: w.Selector.String(), Limit: maxWatchedConfigMaps})
			if err != nil {
				c.problem(fmt.Sprintf("list configmaps -l %s (watched by container %s)", w.Selector, w.Container), err)
				continue
			}
			c.mu.Lock()
			for i := range list.Items {
				cm := &list.Items[i]
				if c.b.ConfigMap(cm.Namespace, cm.Name) == nil {
					c.b.ConfigMaps = append(c.b.ConfigMaps, redacted(cm, corev1.SchemeGroupVersion.WithKind("ConfigMap")))
				}
			}
			c.mu.Unlock()
		}
	}
}
