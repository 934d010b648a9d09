package bundle

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/objconv"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// Load reads back a bundle that Write stored in fsys (a captured
// workspace's context/, read through workspace.Open, which refuses links,
// special and oversized files), so a recorded fault can be replayed
// through the investigator. target names the triaged object (kind, name,
// namespace).
//
// What Write does not store comes back approximately: events get the UID
// of the loaded object they name (kind/name). The pods on a Node target and
// the Missing list come back only from workspaces written since Write
// stores them (node-pods.json, missing-references.json); in older ones a
// rule that needs them sees the object as merely not collected.
func Load(fsys fs.FS, target fault.Resource) (*Bundle, error) {
	b := &Bundle{}
	data, err := optional(fsys, ClusterInfoFile)
	if err != nil {
		return nil, err
	}
	if data != nil {
		if err := json.Unmarshal(data, &b.Cluster); err != nil {
			return nil, fmt.Errorf("read %s: %w", ClusterInfoFile, err)
		}
	}
	files, err := fs.Glob(fsys, ResourcesDir+"/*.json")
	if err != nil {
		return nil, err
	}
	uids := map[string]types.UID{} // kind/name -> uid
	var objs []*unstructured.Unstructured
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("read %s: %w", path.Base(f), err)
		}
		objs = append(objs, u)
	}
	// The files come back in name order; the collection's order (which
	// rules see, and which breaks their ties: the first pod named, the
	// order of equal times in the timeline) is that of cluster-info.json's
	// involvedResources. Objects it does not list keep name order, after.
	rank := map[types.UID]int{}
	for i, r := range b.Cluster.Involved {
		if r.UID != "" {
			rank[types.UID(r.UID)] = i + 1
		}
	}
	order := func(u *unstructured.Unstructured) int {
		if n, ok := rank[u.GetUID()]; ok {
			return n
		}
		return len(rank) + 1
	}
	sort.SliceStable(objs, func(i, j int) bool { return order(objs[i]) < order(objs[j]) })
	for _, u := range objs {
		uids[u.GetKind()+"/"+u.GetName()] = u.GetUID()
		if u.GetKind() == target.Kind && u.GetName() == target.Name {
			b.Object = u
			b.Target = target
			b.Target.UID = string(u.GetUID())
			if b.Target.APIVersion == "" {
				b.Target.APIVersion = u.GetAPIVersion()
			}
		}
		if err := b.addLoaded(u); err != nil {
			return nil, fmt.Errorf("read %s: %w", u.GetKind()+"/"+u.GetName(), err)
		}
	}
	if b.Object == nil {
		return nil, fmt.Errorf("no %s/%s among the resources (%s/)", target.Kind, target.Name, ResourcesDir)
	}
	if err := b.loadEvents(fsys, uids); err != nil {
		return nil, err
	}
	if err := b.loadLogs(fsys); err != nil {
		return nil, err
	}
	// Only what the collection could not read: best effort.
	if data, err := optional(fsys, ProblemsFile); err != nil {
		return nil, err
	} else if data != nil {
		_ = json.Unmarshal(data, &b.Problems)
	}
	for _, f := range []struct {
		name string
		into any
	}{
		{CandidatesFile, &b.Candidates},
		{MissingFile, &b.Missing},
		{NodePodsFile, &b.NodePods},
		{NamespacePodsFile, &b.NamespacePods},
		{DependencyPodsFile, &b.DependencyPods},
		{ActorObjectsFile, &b.ActorObjects},
	} {
		data, err := optional(fsys, f.name)
		if err != nil {
			return nil, err
		}
		if data == nil {
			continue
		}
		if err := json.Unmarshal(data, f.into); err != nil {
			return nil, fmt.Errorf("read %s: %w", f.name, err)
		}
	}
	return b, nil
}

// optional reads a file Write may not have stored: missing or unreadable
// is nil, as in workspaces from before it was stored; one the reader
// refused (a link, a pipe, an oversized file) is an error.
func optional(fsys fs.FS, name string) ([]byte, error) {
	data, err := fs.ReadFile(fsys, name)
	switch {
	case errors.Is(err, safefile.ErrRefused):
		return nil, err
	case err != nil:
		return nil, nil
	}
	return data, nil
}

func into[T any](u *unstructured.Unstructured, dst *[]*T) error {
	v := new(T)
	if err := objconv.Converter.FromUnstructured(u.Object, v); err != nil {
		return err
	}
	*dst = append(*dst, v)
	return nil
}

// addLoaded puts an object into its typed slice; unknown kinds stay only
// as the target's unstructured object.
func (b *Bundle) addLoaded(u *unstructured.Unstructured) error {
	switch u.GetKind() {
	case "Pod":
		return into(u, &b.Pods)
	case "ReplicaSet":
		return into(u, &b.ReplicaSets)
	case "Deployment":
		return into(u, &b.Deployments)
	case "StatefulSet":
		return into(u, &b.StatefulSets)
	case "DaemonSet":
		return into(u, &b.DaemonSets)
	case "Job":
		return into(u, &b.Jobs)
	case "CronJob":
		return into(u, &b.CronJobs)
	case "Node":
		return into(u, &b.Nodes)
	case "ConfigMap":
		return into(u, &b.ConfigMaps)
	case "ServiceAccount":
		return into(u, &b.ServiceAccounts)
	case "PersistentVolumeClaim":
		return into(u, &b.PVCs)
	case "PersistentVolume":
		return into(u, &b.PVs)
	case "StorageClass":
		return into(u, &b.StorageClasses)
	case "Service":
		return into(u, &b.Services)
	case "EndpointSlice":
		return into(u, &b.EndpointSlices)
	case "Ingress":
		return into(u, &b.Ingresses)
	case "IngressClass":
		return into(u, &b.IngressClasses)
	case "NetworkPolicy":
		return into(u, &b.NetworkPolicies)
	case "RoleBinding":
		return into(u, &b.RoleBindings)
	case "ClusterRoleBinding":
		return into(u, &b.ClusterRoleBindings)
	case "Role":
		return into(u, &b.Roles)
	case "ClusterRole":
		return into(u, &b.ClusterRoles)
	case "HorizontalPodAutoscaler":
		return into(u, &b.HPAs)
	case "ResourceQuota":
		return into(u, &b.ResourceQuotas)
	case "LimitRange":
		return into(u, &b.LimitRanges)
	case "PodDisruptionBudget":
		return into(u, &b.PDBs)
	case "Namespace":
		ns := &corev1.Namespace{}
		if err := objconv.Converter.FromUnstructured(u.Object, ns); err != nil {
			return err
		}
		b.Namespace = ns
	}
	return nil
}

func (b *Bundle) loadEvents(fsys fs.FS, uids map[string]types.UID) error {
	data, err := fs.ReadFile(fsys, EventsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	var recs []EventRecord
	if err := json.Unmarshal(data, &recs); err != nil {
		return fmt.Errorf("read %s: %w", EventsFile, err)
	}
	for _, r := range recs {
		kind, name, _ := strings.Cut(r.Object, "/")
		b.Events = append(b.Events, corev1.Event{
			ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace},
			InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name, Namespace: r.Namespace,
				FieldPath: r.FieldPath, UID: uids[r.Object]},
			Type: r.Type, Reason: r.Reason, Message: r.Message, Count: r.Count,
			FirstTimestamp: metav1.NewTime(r.FirstTimestamp), LastTimestamp: metav1.NewTime(r.LastTimestamp),
			Source: corev1.EventSource{Component: r.Source},
		})
	}
	return nil
}

// logHeaderRe reads LogsText's header: "==> pod/P [init ]container C (current|previous) <==".
var logHeaderRe = regexp.MustCompile(`^==> pod/(?P<pod>\S+) (?P<kind>init container|container) (?P<container>\S+) \((?P<instance>current|previous)\) <==$`)

func (b *Bundle) loadLogs(fsys fs.FS) error {
	f, err := fsys.Open(LogsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	var cur *ContainerLog
	var text strings.Builder
	flush := func() {
		if cur == nil {
			return
		}
		t := strings.TrimSuffix(text.String(), "\n") // the blank separator line
		switch {
		case strings.HasPrefix(t, "# logs unavailable: ") && !strings.Contains(strings.TrimSuffix(t, "\n"), "\n"):
			cur.Error = strings.TrimSpace(strings.TrimPrefix(t, "# logs unavailable: "))
		case t == "# (empty)\n":
		default:
			if strings.HasSuffix(t, "# (truncated)\n") {
				cur.Truncated = true
				t = strings.TrimSuffix(t, "# (truncated)\n")
			}
			cur.Text = t
		}
		b.Logs = append(b.Logs, *cur)
		cur = nil
		text.Reset()
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if m, ok := submatch.Find(logHeaderRe, line); ok {
			flush()
			cur = &ContainerLog{Namespace: b.Target.Namespace, Pod: m.Get("pod"), Container: m.Get("container"),
				Init: m.Get("kind") == "init container", Previous: m.Get("instance") == "previous"}
			continue
		}
		if cur != nil {
			text.WriteString(line)
			text.WriteByte('\n')
		}
	}
	flush()
	return sc.Err()
}
