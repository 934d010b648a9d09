package bundle

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
)

// Files written under a workspace's context/ directory.
const (
	ResourcesDir    = "resources"
	EventsFile      = "events.json"
	LogsFile        = "logs.txt"
	ClusterInfoFile = "cluster-info.json"
	ProblemsFile    = "collection-problems.json"
	// CandidatesFile lists the namespace's pods (name, labels, phase) a
	// Service target's selector was compared with when it matched none.
	CandidatesFile = "service-candidate-pods.json"
	// MissingFile lists the objects something refers to that do not
	// exist (a 404 is evidence: a missing ConfigMap, Service or class).
	MissingFile = "missing-references.json"
	// NodePodsFile holds the pods scheduled on a Node target.
	NodePodsFile = "node-pods.json"
	// NamespacePodsFile holds the status of every pod of a Namespace target.
	NamespacePodsFile = "namespace-pods.json"
)

// Write stores the bundle under contextDir: one JSON file per object in
// resources/, events.json (oldest first), logs.txt, cluster-info.json, and
// what could not be collected. Files are 0600; the data is already redacted.
func (b *Bundle) Write(contextDir string) error {
	resDir := filepath.Join(contextDir, ResourcesDir)
	if err := os.MkdirAll(resDir, 0o700); err != nil {
		return err
	}
	write := func(name string, v any) error {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("encode %s: %w", name, err)
		}
		return atomicfile.Write(filepath.Join(contextDir, name), append(data, '\n'), 0o600)
	}
	for _, o := range b.objects() {
		name := fileName(o.gvk.Kind, o.name)
		if err := write(filepath.Join(ResourcesDir, name), o.obj); err != nil {
			return err
		}
	}
	if err := write(EventsFile, b.eventRecords()); err != nil {
		return err
	}
	if err := write(ClusterInfoFile, b.Cluster); err != nil {
		return err
	}
	if len(b.Problems) > 0 {
		if err := write(ProblemsFile, b.Problems); err != nil {
			return err
		}
	}
	if len(b.Candidates) > 0 {
		if err := write(CandidatesFile, b.Candidates); err != nil {
			return err
		}
	}
	// What Load needs to replay the rules that read them (kubectl triage
	// replay): without them a replay would not see a missing object.
	if len(b.Missing) > 0 {
		if err := write(MissingFile, b.Missing); err != nil {
			return err
		}
	}
	if len(b.NodePods) > 0 {
		if err := write(NodePodsFile, b.NodePods); err != nil {
			return err
		}
	}
	if len(b.NamespacePods) > 0 {
		if err := write(NamespacePodsFile, b.NamespacePods); err != nil {
			return err
		}
	}
	return atomicfile.Write(filepath.Join(contextDir, LogsFile), []byte(b.LogsText()), 0o600)
}

type namedObject struct {
	gvk  schema.GroupVersionKind
	name string
	obj  any
}

// objects lists every object with its kind stamped, target first.
func (b *Bundle) objects() []namedObject {
	var out []namedObject
	out = append(out, namedObject{b.Object.GroupVersionKind(), b.Object.GetName(), b.Object.Object})
	b.each(func(gvk schema.GroupVersionKind, o metav1.Object, obj runtime.Object) {
		if string(o.GetUID()) == b.Target.UID {
			return
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return
		}
		m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
		out = append(out, namedObject{gvk, o.GetName(), m})
	})
	return out
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9._-]`)

// fileName is kind-name.json, restricted to safe characters: object names
// are DNS-like, but a custom resource's kind or name must not steer a path.
func fileName(kind, name string) string {
	f := unsafeChars.ReplaceAllString(strings.ToLower(kind+"-"+name), "_")
	f = strings.TrimLeft(f, ".")
	if len(f) > 200 {
		f = f[:200]
	}
	return f + ".json"
}

// EventRecord is the compact form of an event written to events.json.
type EventRecord struct {
	Type           string    `json:"type"`
	Reason         string    `json:"reason"`
	Message        string    `json:"message"`
	Object         string    `json:"object"` // kind/name
	Namespace      string    `json:"namespace,omitempty"`
	FieldPath      string    `json:"fieldPath,omitempty"`
	Count          int32     `json:"count"`
	FirstTimestamp time.Time `json:"firstTimestamp"`
	LastTimestamp  time.Time `json:"lastTimestamp"`
	Source         string    `json:"source,omitempty"`
}

func (b *Bundle) eventRecords() []EventRecord {
	out := make([]EventRecord, 0, len(b.Events))
	for i := range b.Events {
		e := &b.Events[i]
		count := EventCount(e)
		src := e.Source.Component
		if src == "" {
			src = e.ReportingController
		}
		out = append(out, EventRecord{
			Type: e.Type, Reason: e.Reason, Message: e.Message,
			Object:    e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name,
			Namespace: e.InvolvedObject.Namespace, FieldPath: e.InvolvedObject.FieldPath,
			Count: count, FirstTimestamp: FirstSeen(e).UTC(), LastTimestamp: EventTime(e).UTC(),
			Source: src,
		})
	}
	return out
}

// LogsText renders the logs as one text file with a header per container
// instance, in the style of `tail` over several files.
func (b *Bundle) LogsText() string {
	var sb strings.Builder
	if len(b.Logs) == 0 {
		sb.WriteString("# no container has produced logs that could be read\n")
	}
	for _, l := range b.Logs {
		inst := "current"
		if l.Previous {
			inst = "previous"
		}
		kind := "container"
		if l.Init {
			kind = "init container"
		}
		fmt.Fprintf(&sb, "==> pod/%s %s %s (%s) <==\n", l.Pod, kind, l.Container, inst)
		switch {
		case l.Error != "":
			fmt.Fprintf(&sb, "# logs unavailable: %s\n", l.Error)
		case l.Text == "":
			sb.WriteString("# (empty)\n")
		default:
			sb.WriteString(l.Text)
			if !strings.HasSuffix(l.Text, "\n") {
				sb.WriteByte('\n')
			}
			if l.Truncated {
				sb.WriteString("# (truncated)\n")
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}
