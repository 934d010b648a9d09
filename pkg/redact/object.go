package redact

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/term"
)

// lastAppliedKey is the annotation where `kubectl apply` keeps the whole
// applied manifest, credentials included.
const lastAppliedKey = "kubectl.kubernetes.io/last-applied-configuration"

// Object redacts an unstructured object in place (the map of
// unstructured.Unstructured.Object, any kind, a List included) and returns
// how many values it masked. The rules, from the most to the least certain:
//
//   - A Secret's data and stringData values are masked, their keys kept (a
//     missing key is evidence, a value never is), and so is its
//     last-applied-configuration annotation, which repeats them. Any map of
//     kind Secret is treated so, whatever its apiVersion and wherever it sits
//     (a List item, an object embedded in a custom resource).
//   - A name/value entry (container env, and the same shape in custom
//     resources: Argo CD Helm parameters, workflow parameters) whose name is
//     sensitive has its value masked. valueFrom and envFrom are references
//     and are kept.
//   - A string (or list of strings) under a sensitive map key is masked:
//     ConfigMap data `password: …`, `clientSecret:` in a custom resource.
//     Annotation and label keys are exempt: they are namespaced
//     configuration names (ingress-nginx's auth-secret names a Secret); their
//     values still go through Text. So are the label maps that select by
//     those labels (matchLabels, nodeSelector, a Service's selector): a
//     selector `auth: oidc` must still read like the pod label it matches
//     (or fails to match), or the bundle would show a mismatch that does
//     not exist. Only values a label can hold are exempt (63 characters of
//     [A-Za-z0-9-_.]); anything else falls back to the rules below.
//   - In args and command lists, the element after a sensitive flag
//     (`--token`, `xyz`) is masked unless it is itself a flag.
//   - Every other string goes through Text: PEM keys, tokens, URL passwords
//     and name=value pairs inside config files, scripts and messages.
//   - The last-applied-configuration annotation of other objects is parsed,
//     redacted by these same rules and re-serialised; if it does not parse it
//     is masked whole.
//   - metadata.managedFields is dropped (see StripManagedFields).
//
// Values that only refer to a credential are kept: $(VAR) and ${VAR}
// references, template expressions, and paths under the usual mount points
// (see isReference and isPathLike). Only strings are masked by name: a
// number or boolean under a sensitive name is a schema field such as
// automountServiceAccountToken, not a credential.
func Object(obj map[string]any) int {
	if obj == nil {
		return 0
	}
	StripManagedFields(obj)
	var w walker
	w.object(obj, "")
	return w.n
}

// StripManagedFields deletes metadata.managedFields from obj and from the
// items of a List. Server-side apply bookkeeping says who owns which field;
// it holds no credential but is often the bulk of an object, and an
// investigator reading the bundle never needs it.
func StripManagedFields(obj map[string]any) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	if items, ok := obj["items"].([]any); ok {
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				StripManagedFields(m)
			}
		}
	}
}

// walker carries the running count of masked values.
type walker struct {
	n int // values masked
	// clean: strings also cross term.Clean (CleanJSON); cleaned counts
	// those it changed.
	clean   bool
	cleaned int
}

// object redacts a map that may be a Kubernetes object. impliedKind is the
// kind of an item of a typed List (items of a SecretList may lack kind).
func (w *walker) object(m map[string]any, impliedKind string) {
	kind, _ := m["kind"].(string)
	if kind == "" {
		kind = impliedKind
	}
	isSecret := kind == "Secret"
	if isSecret {
		w.secretData(m)
	}
	w.nameValue(m)
	itemKind, isList := listItemKind(kind)
	for k, v := range m {
		switch k {
		case "metadata":
			if md, ok := v.(map[string]any); ok {
				w.metadata(md, isSecret)
				continue
			}
		case "items":
			if items, ok := v.([]any); ok && isList {
				w.items(items, itemKind)
				continue
			}
		}
		m[k] = w.value(k, v)
	}
}

// listItemKind returns the kind of the items of a list kind: Secret for
// SecretList, "" (each item says) for List.
func listItemKind(kind string) (string, bool) {
	item, ok := strings.CutSuffix(kind, "List")
	return item, ok
}

func (w *walker) items(items []any, kind string) {
	for i, it := range items {
		if m, ok := it.(map[string]any); ok {
			w.object(m, kind)
			continue
		}
		items[i] = w.value("", it)
	}
}

// secretData masks every value of a Secret's data and stringData, keeping
// the keys. Empty values stay empty: "the key exists but is empty" is
// evidence and reveals nothing.
func (w *walker) secretData(m map[string]any) {
	for _, field := range []string{"data", "stringData"} {
		data, ok := m[field].(map[string]any)
		if !ok {
			if v, present := m[field]; present && v != nil {
				m[field] = w.maskAlways(v) // not a map: fail closed
			}
			continue
		}
		for k, v := range data {
			data[k] = w.maskAlways(v)
		}
	}
}

// nameValue masks the value of a {name, value} entry whose name is
// sensitive: container env, and the same shape in custom resources.
func (w *walker) nameValue(m map[string]any) {
	name, ok := m["name"].(string)
	if !ok {
		return
	}
	if v, ok := m["value"].(string); ok && IsSensitiveName(name) {
		m["value"] = w.maskNamed(name, v)
	}
}

func (w *walker) metadata(md map[string]any, isSecret bool) {
	delete(md, "managedFields")
	for k, v := range md {
		if a, ok := v.(map[string]any); ok && (k == "annotations" || k == "labels") {
			w.annotations(a, isSecret)
			continue
		}
		md[k] = w.value(k, v)
	}
}

// annotations redacts annotation (or label) values by shape only; see
// Object for why their keys are not judged by name.
func (w *walker) annotations(a map[string]any, isSecret bool) {
	for k, v := range a {
		s, ok := v.(string)
		switch {
		case !ok:
			a[k] = w.value("", v)
		case k == lastAppliedKey && isSecret:
			a[k] = w.maskAlways(s)
		case k == lastAppliedKey:
			a[k] = w.lastApplied(s)
		default:
			a[k] = w.text(s)
		}
	}
}

// lastApplied redacts the manifest kept in the last-applied-configuration
// annotation with the rules of Object. An unchanged manifest is returned
// byte for byte; one that does not parse is masked whole, since it cannot be
// inspected.
func (w *walker) lastApplied(s string) string {
	if s == "" || s == Mask {
		return s
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return w.maskAlways(s).(string)
	}
	inner := walker{clean: w.clean}
	if m, ok := v.(map[string]any); ok {
		inner.object(m, "")
	} else {
		v = inner.value("", v)
	}
	if inner.n == 0 && inner.cleaned == 0 {
		return s
	}
	w.cleaned += inner.cleaned
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return w.maskAlways(s).(string)
	}
	w.n += inner.n
	return strings.TrimSuffix(buf.String(), "\n")
}

// value redacts any JSON value found under key (key is "" inside lists).
func (w *walker) value(key string, v any) any {
	switch t := v.(type) {
	case string:
		if IsSensitiveName(key) {
			return w.maskNamed(key, t)
		}
		return w.text(t)
	case []any:
		if key == "args" || key == "command" {
			w.args(t)
			return t
		}
		sensitive := IsSensitiveName(key)
		for i, e := range t {
			if s, ok := e.(string); ok && sensitive {
				t[i] = w.maskNamed(key, s)
				continue
			}
			t[i] = w.value("", e)
		}
	case map[string]any:
		if labelMapKeys[key] && allStrings(t) {
			w.labelMap(t)
			return v
		}
		w.object(t, "")
	case []string: // hand-built objects; unstructured uses []any
		sensitive := IsSensitiveName(key)
		for i, s := range t {
			if sensitive {
				t[i] = w.maskNamed(key, s)
			} else {
				t[i] = w.text(s)
			}
		}
	case map[string]string:
		for k, s := range t {
			if IsSensitiveName(k) {
				t[k] = w.maskNamed(k, s)
			} else {
				t[k] = w.text(s)
			}
		}
	}
	return v
}

// labelMapKeys are the fields that hold a map of label key → label value
// used to select objects: LabelSelector.matchLabels, a pod's nodeSelector,
// a Service's (or ReplicationController's) spec.selector. A LabelSelector
// under "selector" is a map of maps and is walked as usual.
var labelMapKeys = map[string]bool{"matchLabels": true, "nodeSelector": true, "selector": true}

func allStrings(m map[string]any) bool {
	for _, v := range m {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

// labelMap redacts a selector's label map as metadata.labels is: by shape
// only, the key never judged, for every value a label can hold.
func (w *walker) labelMap(m map[string]any) {
	for k, v := range m {
		s := v.(string) // allStrings
		if isLabelValue(s) {
			m[k] = w.text(s)
		} else {
			m[k] = w.value(k, s)
		}
	}
}

// isLabelValue reports whether s is a valid label value: at most 63
// characters of [A-Za-z0-9-_.], beginning and ending with an alphanumeric
// (or empty).
func isLabelValue(s string) bool {
	if len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlnum(c) {
			continue
		}
		if (c != '-' && c != '_' && c != '.') || i == 0 || i == len(s)-1 {
			return false
		}
	}
	return true
}

// args redacts a container's args or command: the element after a
// sensitive flag written apart from its value (`--token`, `xyz`), unless
// that element is another flag; everything else through Text, which also
// handles the joined form `--password=xyz`.
func (w *walker) args(list []any) {
	for i := 0; i < len(list); i++ {
		s, ok := list[i].(string)
		if !ok {
			list[i] = w.value("", list[i])
			continue
		}
		list[i] = w.text(s)
		flag, ok := flagName(s)
		if !ok || !IsSensitiveName(flag) || i+1 >= len(list) {
			continue
		}
		if next, ok := list[i+1].(string); ok && !strings.HasPrefix(next, "-") {
			list[i+1] = w.maskNamed(flag, next)
			i++
		}
	}
}

// flagName returns the name of a flag written without a value: "--token",
// "-token" (Go's flag package). Single-letter flags (-p) are never judged:
// too short to say anything.
func flagName(s string) (string, bool) {
	name := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "-")
	if len(name) == len(s) || len(name) < 2 || strings.ContainsAny(name, "= \t") {
		return "", false
	}
	return name, true
}

// maskNamed masks a value because its name is sensitive, unless it is empty,
// already masked, or only refers to the credential (a reference, a path,
// an object name). Kept values still go through Text.
func (w *walker) maskNamed(name, v string) string {
	if v == "" || alreadyMasked(v) || isReference(v) || isPathLike(v) || isObjectRef(name, v) {
		return w.text(v)
	}
	w.n++
	return Mask
}

// maskAlways masks any non-empty value (Secret data), whatever its type.
func (w *walker) maskAlways(v any) any {
	switch t := v.(type) {
	case nil:
		return nil
	case string:
		if t == "" || t == Mask {
			return t
		}
	}
	w.n++
	return Mask
}

func (w *walker) text(s string) string {
	if w.clean {
		if c := term.Clean(s); c != s {
			s = c
			w.cleaned++
		}
	}
	out, n := Text(s)
	w.n += n
	return out
}
