package bundle

// Events about the involved objects and the containers' logs (current and
// previous instance), bounded.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
)

// events lists the events of one object inside its namespace (events about
// cluster-scoped objects live in "default"): a field-selected list, never a
// cluster-wide one. It reports whether the list could be read.
func (c *collector) events(ctx context.Context, ref fault.Resource) bool {
	ns := ref.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	c.count()
	var items []corev1.Event
	var err error
	if p := c.opts.PodEvents; p != nil && ref.Kind == "Pod" && p.Namespace == ns && p.Name == ref.Name {
		items, err = p.of(ctx, ref.UID) // started before the pod was read
	} else {
		var list *corev1.EventList
		if list, err = c.cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: eventSelector(ref)}); err == nil {
			items = list.Items
		}
	}
	if err != nil {
		c.problem(fmt.Sprintf("events of %s/%s", strings.ToLower(ref.Kind), ref.Name), err)
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range items {
		e.ManagedFields = nil
		e.Message, _ = redact.Text(e.Message)
		c.b.Events = append(c.b.Events, e)
	}
	return true
}

// eventSelector selects the events of one object. Most components set
// involvedObject.uid to the object's UID, but the kubelet files its node
// events (NodeNotReady, EvictionThresholdMet, ImageGCFailed, Rebooted, …)
// with involvedObject.uid set to the node's *name*, so a Node's events are
// selected by kind and name, which matches both.
//
// An object whose UID is not known (a Job's pod deleted since, named only
// by the Job's events) is selected the same way, by kind and name.
func eventSelector(ref fault.Resource) string {
	if ref.Kind == "Node" || ref.UID == "" {
		return fields.AndSelectors(
			fields.OneTermEqualSelector("involvedObject.kind", ref.Kind),
			fields.OneTermEqualSelector("involvedObject.name", ref.Name),
		).String()
	}
	return fields.OneTermEqualSelector("involvedObject.uid", ref.UID).String()
}

type logRequest struct {
	container string
	init      bool
	previous  bool
}

// logRequests asks only for logs that can exist: the current instance of a
// container that has started, the previous one of a container that has
// terminated before. Asking for others only earns a 400 from the kubelet.
//
// A container waiting in back-off after a restart has a current log too:
// the kubelet serves its last, dead instance. It is asked for because the
// previous one is often gone: a real kubelet garbage-collects the older
// dead instance (and its log file) as soon as it starts the next, while
// the pod status it published still points at it.
func logRequests(p *corev1.Pod) []logRequest {
	var out []logRequest
	add := func(statuses []corev1.ContainerStatus, init bool) {
		for _, s := range statuses {
			if s.State.Running != nil || s.State.Terminated != nil || s.RestartCount > 0 {
				out = append(out, logRequest{container: s.Name, init: init})
			}
			if s.LastTerminationState.Terminated != nil || s.RestartCount > 0 {
				out = append(out, logRequest{container: s.Name, init: init, previous: true})
			}
		}
	}
	add(p.Status.InitContainerStatuses, true)
	add(p.Status.ContainerStatuses, false)
	return out
}

func (c *collector) log(ctx context.Context, ns, pod string, r logRequest) {
	c.count()
	opts := &corev1.PodLogOptions{
		Container:  r.container,
		Previous:   r.previous,
		TailLines:  &c.opts.TailLines,
		LimitBytes: &c.opts.LimitBytes,
		Timestamps: true,
	}
	entry := ContainerLog{Namespace: ns, Pod: pod, Container: r.container, Init: r.init, Previous: r.previous}
	stream, err := c.cs.CoreV1().Pods(ns).GetLogs(pod, opts).Stream(ctx)
	if err == nil {
		var data []byte
		data, err = io.ReadAll(io.LimitReader(stream, c.opts.LimitBytes+1))
		stream.Close()
		if int64(len(data)) > c.opts.LimitBytes {
			data = data[:c.opts.LimitBytes]
			entry.Truncated = true
		}
		if msg, ok := kubeletLogError(string(data)); ok {
			entry.Error = msg
		} else {
			entry.Text, _ = redact.Text(string(data))
		}
	}
	if err != nil {
		entry.Error = logError(err)
	}
	c.mu.Lock()
	c.b.Logs = append(c.b.Logs, entry)
	c.mu.Unlock()
}

// kubeletLogError recognises a body the kubelet wrote instead of logs: when
// the log file of a container it has already garbage-collected is gone, it
// answers 200 with one line such as `failed to try resolving symlinks in
// path "/var/log/pods/…/2.log": lstat …: no such file or directory`. Logs
// are requested with timestamps, so every genuine line starts with one; a
// single line without is the kubelet's, and must not be read as the
// application's last words ("no such file or directory" would blame a
// missing file).
func kubeletLogError(body string) (string, bool) {
	line := strings.TrimRight(body, "\n")
	if line == "" || strings.Contains(line, "\n") {
		return "", false
	}
	if ts, _, ok := strings.Cut(line, " "); ok {
		if _, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			return "", false
		}
	}
	return "the kubelet could not read this log: " + line, true
}

func logError(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Message
	}
	return err.Error()
}
