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
	"github.com/kubectl-triage/kubectl-triage/pkg/objconv"
)

// Files written under a workspace's context/ directory.
const (
	ResourcesDir    = "resources"
	EventsFile      = "events.json"
	LogsFile        = "logs.txt"
	ClusterInfoFile = "cluster-info.json"
	ProblemsFile    = "collection-problems.json"
	// CandidatesFile lists the pods (name, labels, owners, phase) a
	// Service target's selector was compared with: the namespace's when it
	// matched none, the other revisions' when it pins one.
	CandidatesFile = "service-candidate-pods.json"
	// MissingFile lists the objects something refers to that do not
	// exist (a 404 is evidence: a missing ConfigMap, Service or class).
	MissingFile = "missing-references.json"
	// NodePodsFile holds the pods scheduled on a Node target.
	NodePodsFile = "node-pods.json"
	// NamespacePodsFile holds the status of every pod of a Namespace target.
	NamespacePodsFile = "namespace-pods.json"
	// DependencyPodsFile holds the pods behind a dependency Service that
	// has no ready endpoint.
	DependencyPodsFile = "dependency-pods.json"
	// ActorObjectsFile holds what the search for the controller the target
	// waits on found: its Lease, workload, APIService and Service.
	ActorObjectsFile = "actor-objects.json"
)

// Write stores the bundle under contextDir: one JSON file per object in
// resources/, events.json (oldest first), logs.txt, cluster-info.json, and
// what could not be collected. Files are 0600; the data is already redacted.
// Each file is written atomically and synced, all at once: the syncs of
// files written together share the filesystem's journal commits, where one
// after the other each waits for its own.
func (b *Bundle) Write(contextDir string) error {
	resDir := filepath.Join(contextDir, ResourcesDir)
	if err := os.MkdirAll(resDir, 0o700); err != nil {
		return err
	}
	files := map[string]any{} // name → value to encode as JSON
	for _, o := range b.objects() {
		files[filepath.Join(ResourcesDir, fileName(o.gvk.Kind, o.name))] = o.obj
	}
	files[EventsFile] = b.eventRecords()
	files[ClusterInfoFile] = b.Cluster
	// What Load needs to replay the rules that read them (kubectl triage
	// replay): without the missing references a replay would not see a
	// missing object.
	for name, v := range map[string]struct {
		v     any
		empty bool
	}{
		ProblemsFile:       {b.Problems, len(b.Problems) == 0},
		CandidatesFile:     {b.Candidates, len(b.Candidates) == 0},
		MissingFile:        {b.Missing, len(b.Missing) == 0},
		NodePodsFile:       {b.NodePods, len(b.NodePods) == 0},
		NamespacePodsFile:  {b.NamespacePods, len(b.NamespacePods) == 0},
		DependencyPodsFile: {b.DependencyPods, len(b.DependencyPods) == 0},
		ActorObjectsFile:   {b.ActorObjects, len(b.ActorObjects) == 0},
	} {
		if !v.empty {
			files[name] = v.v
		}
	}
	data := map[string][]byte{LogsFile: []byte(b.LogsText())}
	for name, v := range files {
		enc, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("encode %s: %w", name, err)
		}
		data[name] = append(enc, '\n')
	}
	out := make([]atomicfile.File, 0, len(data))
	for name, d := range data {
		out = append(out, atomicfile.File{Path: filepath.Join(contextDir, name), Data: d, Perm: 0o600})
	}
	return atomicfile.WriteFiles(out)
}

type namedObject struct {
	gvk  schema.GroupVersionKind
	ns   string
	name string
	obj  any
}

// Object is one object as context/resources holds it.
type Object struct {
	Kind, Namespace, Name string
	// File is its path under the context directory.
	File string
	// Obj is the object as written (redacted), a JSON-encodable value.
	Obj any
}

// Objects lists the bundle's objects as Write stores them, target first:
// what an agent finds in context/resources.
func (b *Bundle) Objects() []Object {
	var out []Object
	for _, o := range b.objects() {
		out = append(out, Object{Kind: o.gvk.Kind, Namespace: o.ns, Name: o.name, File: filepath.Join(ResourcesDir, fileName(o.gvk.Kind, o.name)), Obj: o.obj})
	}
	return out
}

// objects lists every object with its kind stamped, target first.
func (b *Bundle) objects() []namedObject {
	var out []namedObject
	out = append(out, namedObject{b.Object.GroupVersionKind(), b.Object.GetNamespace(), b.Object.GetName(), b.Object.Object})
	b.each(func(gvk schema.GroupVersionKind, o metav1.Object, obj runtime.Object) {
		if string(o.GetUID()) == b.Target.UID {
			return
		}
		m, err := objconv.Converter.ToUnstructured(obj)
		if err != nil {
			return
		}
		m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
		out = append(out, namedObject{gvk, o.GetNamespace(), o.GetName(), m})
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
