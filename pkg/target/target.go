// Package target turns the user's TYPE/NAME arguments into the one object to
// triage, the way kubectl resolves its arguments: through the REST mapper
// (short names, kind.group, CRDs), then one GET (lookup.go).
package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"
	"github.com/kubectl-triage/kubectl-triage/pkg/readonly"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
)

// Target is the resolved object.
type Target struct {
	Mapping *meta.RESTMapping
	Object  *unstructured.Unstructured
}

// Ref names the target in the incident's terms.
func (t *Target) Ref() fault.Resource {
	return fault.Resource{
		APIVersion: t.Object.GetAPIVersion(),
		Kind:       t.Object.GetKind(),
		Name:       t.Object.GetName(),
		Namespace:  t.Object.GetNamespace(),
		UID:        string(t.Object.GetUID()),
	}
}

// UsageError marks errors in the arguments themselves.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// Normalize checks the argument forms kubectl triage accepts — TYPE/NAME,
// TYPE NAME, or a bare NAME meaning a pod (as with `kubectl logs NAME`) — and
// returns them as lookup takes them (TYPE/NAME or TYPE NAME). A bare word that is
// a built-in resource type (deploy, deployments, sts, svc…) is a type
// missing its name, as kubectl reads it, not a pod of that name (that is
// pod/NAME).
func Normalize(args []string) ([]string, error) {
	switch len(args) {
	case 0:
		return nil, &UsageError{"you must name one resource to triage: TYPE/NAME (e.g. pod/web-0, deploy/web), TYPE NAME, or a pod NAME"}
	case 1:
		a := args[0]
		if typ, ok := strings.CutSuffix(a, "/"); ok && typ != "" && !strings.Contains(typ, "/") {
			if t, known := builtinType(typ); known {
				return nil, nameNeeded(typ, t.singular, !t.clusterScoped)
			}
		}
		if a == "" || strings.HasPrefix(a, "/") || strings.HasSuffix(a, "/") || strings.Count(a, "/") > 1 {
			return nil, &UsageError{fmt.Sprintf("%s is not a resource: use TYPE/NAME (e.g. pod/web-0), TYPE NAME, or a pod NAME", term.Quote(a))}
		}
		if !strings.Contains(a, "/") {
			if t, known := builtinType(a); known {
				return nil, nameNeeded(a, t.singular, !t.clusterScoped)
			}
			return []string{"pods", a}, nil
		}
		return args, nil
	case 2:
		if !strings.Contains(args[0], "/") && !strings.Contains(args[1], "/") {
			return args, nil
		}
		if !strings.Contains(args[0], "/") {
			// TYPE NAME where NAME holds a slash: a fault naming a
			// path-like object (../../etc), not two resources.
			return nil, &UsageError{fmt.Sprintf("%s is not a valid %s name: a Kubernetes name cannot contain '/'", term.Quote(args[1]), term.Abbrev(args[0]))}
		}
	}
	return nil, &UsageError{fmt.Sprintf("kubectl triage takes exactly one resource, got %d (%s): run it once per resource", targetCount(args), strings.Join(args, " "))}
}

func targetCount(args []string) int {
	if len(args) > 1 && !strings.Contains(args[0], "/") {
		return len(args) - 1 // TYPE NAME1 NAME2 …
	}
	return len(args)
}

// Resolve fetches the single object the arguments name. namespace is the one
// from -n or the kubeconfig context. Errors read like kubectl's and say what
// to do.
func Resolve(getter kubeflags.RESTClientGetter, namespace string, args []string) (*Target, error) {
	norm, err := Normalize(args)
	if err != nil {
		return nil, err
	}
	if name, ok := PodName(args); ok && namespace != "" {
		// A core pod needs no discovery: it is read as lookup reads
		// an object, one GET, without loading the REST mapper (tens of
		// discovery files) first.
		obj, rc, err := getPod(getter, namespace, name)
		if err != nil {
			if apierrors.IsNotFound(err) && rc != nil {
				// A pod's 404 may mean its namespace is missing: ask, so
				// the message names what is (only on this error path).
				if nerr := rc.Get().AbsPath("/api/v1/namespaces", namespace).Do(context.Background()).Error(); apierrors.IsNotFound(nerr) {
					return nil, &explained{msg: fmt.Sprintf("namespace %q not found: list them with: kubectl get namespaces", namespace), err: nerr}
				}
			}
			return nil, resolveError(err, getter, namespace, args, norm)
		}
		return &Target{Mapping: podMapping, Object: obj}, nil
	}
	t, err := lookup(getter, namespace, norm)
	if err != nil {
		return nil, resolveError(err, getter, namespace, args, norm)
	}
	return t, nil
}

// resolveError explains a failed lookup of args (norm as Normalize gave it).
func resolveError(err error, getter kubeflags.RESTClientGetter, namespace string, args, norm []string) error {
	if len(args) == 1 && norm[0] == "pods" && apierrors.IsNotFound(err) {
		// No pod of that name: the word may be a custom resource's
		// type, which only discovery knows.
		if singular, namespaced, ok := servedType(getter, args[0]); ok {
			return nameNeeded(args[0], singular, namespaced)
		}
	}
	return Explain(err, getter, namespace, norm)
}

// podMapping is the core pods' REST mapping, as the REST mapper gives it.
var podMapping = &meta.RESTMapping{
	Resource:         corev1.SchemeGroupVersion.WithResource("pods"),
	GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Pod"),
	Scope:            meta.RESTScopeNamespace,
}

// getPod reads one pod as lookup reads an object: the
// server's JSON decoded as unstructured, its errors the REST client's.
func getPod(getter kubeflags.RESTClientGetter, namespace, name string) (*unstructured.Unstructured, *rest.RESTClient, error) {
	cfg, err := getter.ToRESTConfig()
	if err != nil {
		return nil, nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.APIPath = "/api"
	cfg.GroupVersion = &corev1.SchemeGroupVersion
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, nil, err
	}
	raw, err := rc.Get().Namespace(namespace).Resource("pods").Name(name).Do(context.Background()).Raw()
	if err != nil {
		return nil, rc, err
	}
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil, fmt.Errorf("unexpected object type %T for pod %s", obj, name)
	}
	return u, rc, nil
}

// servedType reports whether the cluster serves a resource type named word
// (plural, singular or short name, through the same REST mapper as the
// lookup), its singular name and whether it is namespaced.
func servedType(getter kubeflags.RESTClientGetter, word string) (singular string, namespaced, ok bool) {
	mapper, err := getter.ToRESTMapper()
	if err != nil {
		return "", false, false
	}
	// As lookup reads a type: resource[.version.group].
	full, gr := schema.ParseResourceArg(strings.ToLower(word))
	var gvr schema.GroupVersionResource
	if full != nil {
		gvr, err = mapper.ResourceFor(*full)
	}
	if full == nil || err != nil {
		gvr, err = mapper.ResourceFor(gr.WithVersion(""))
	}
	if err != nil {
		return "", false, false
	}
	singular, err = mapper.ResourceSingularizer(gvr.Resource)
	if err != nil || singular == "" {
		singular = gvr.Resource
	}
	namespaced = true
	if kind, err := mapper.KindFor(gvr); err == nil {
		if m, err := mapper.RESTMapping(kind.GroupKind(), kind.Version); err == nil {
			namespaced = m.Scope.Name() == meta.RESTScopeNameNamespace
		}
	}
	return singular, namespaced, true
}

// Explain rewrites an error from talking to the cluster into a one-line
// message that says what went wrong and what to do about it.
func Explain(err error, getter kubeflags.RESTClientGetter, namespace string, args []string) error {
	server := "the cluster"
	if cfg, cerr := getter.ToRESTConfig(); cerr == nil && cfg.Host != "" {
		server = cfg.Host
	}
	typ, name := "", ""
	if len(args) == 2 {
		typ, name = args[0], args[1]
	} else if len(args) == 1 {
		typ, name, _ = strings.Cut(args[0], "/")
	}
	var status apierrors.APIStatus
	switch {
	case errors.Is(err, readonly.ErrSecret):
		return fmt.Errorf("kubectl triage never reads Secrets, so their values cannot reach a workspace or an agent: triage the pod or workload that uses %q instead", name)
	case noKubeconfig(getter, server) && os.Getenv("KUBERNETES_SERVICE_HOST") != "":
		// In a pod whose token is not mounted client-go's in-cluster
		// config is impossible too, and a kubeconfig is rarely the fix.
		return fmt.Errorf("no kubeconfig found (%s) and no ServiceAccount token mounted in %s: in a pod, set automountServiceAccountToken: true (kubectl triage install does), or point --kubeconfig at a kubeconfig", kubeconfigPlaces(getter), serviceAccountDir)
	case noKubeconfig(getter, server):
		return fmt.Errorf("no kubeconfig found (%s) and no --server given: point --kubeconfig or KUBECONFIG at your cluster's config", kubeconfigPlaces(getter))
	case apierrors.IsNotFound(err):
		details := ""
		if errors.As(err, &status) && status.Status().Details != nil {
			d := status.Status().Details
			details = d.Kind
			if d.Kind == "namespaces" && d.Name == namespace && typ != "namespaces" && typ != "namespace" && typ != "ns" {
				// The namespace itself is missing, not the object in it.
				return &explained{msg: fmt.Sprintf("namespace %q not found: list them with: kubectl get namespaces", namespace), err: err}
			}
		}
		if details == "" {
			details = typ
		}
		hint := fmt.Sprintf("list them with: kubectl get %s -n %s", details, namespace)
		if typ == "pods" && len(args) == 2 && !strings.Contains(strings.Join(args, ""), "/") {
			hint += fmt.Sprintf(", or if %q is not a pod, give its type (e.g. deploy/%s)", name, name)
		}
		return &explained{msg: fmt.Sprintf("%s %q not found in namespace %q: %s; use -n to pick another namespace", details, name, namespace, hint), err: err}
	case isUnknownType(err):
		return fmt.Errorf("unknown resource type %q: run 'kubectl api-resources' to list the types %s serves", typ, server)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("forbidden: %s; kubectl triage needs read access (get, list) to %s in namespace %q", statusMessage(err), typ, namespace)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("unauthorized: %s rejected your credentials (%s); log in again or check --context/--kubeconfig", server, statusMessage(err))
	case isUnreachable(err):
		return fmt.Errorf("cannot reach the cluster at %s: %s; check that it is running and that --context/--kubeconfig point at it", server, rootCause(err))
	}
	return err
}

// noKubeconfig reports whether the client fell back to client-go's default
// server because no kubeconfig exists at all: "cannot reach
// http://localhost:8080" would send the user looking for a cluster there.
func noKubeconfig(getter kubeflags.RESTClientGetter, server string) bool {
	if server != "http://localhost:8080" {
		return false
	}
	files := getter.ToRawKubeConfigLoader().ConfigAccess().GetLoadingPrecedence()
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			return false
		}
	}
	return true
}

// serviceAccountDir is where client-go's in-cluster config reads the pod's
// ServiceAccount token (rest.InClusterConfig).
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// kubeconfigPlaces says where a kubeconfig was looked for.
func kubeconfigPlaces(getter kubeflags.RESTClientGetter) string {
	files := getter.ToRawKubeConfigLoader().ConfigAccess().GetLoadingPrecedence()
	if len(files) == 0 {
		return "none configured"
	}
	return "looked in " + strings.Join(files, ", ")
}

// explained replaces an error's message with an actionable one while
// keeping it for errors.Is/As (apierrors.IsNotFound still answers).
type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }

func statusMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Message
	}
	return err.Error()
}

func isUnknownType(err error) bool {
	if meta.IsNoMatchError(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "doesn't have a resource type")
}

func isUnreachable(err error) bool {
	var netErr net.Error
	var urlErr *url.Error
	var opErr *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return true
	case errors.As(err, &opErr), errors.As(err, &urlErr), errors.As(err, &netErr):
		return true
	}
	// Discovery wraps transport errors as text.
	msg := err.Error()
	for _, s := range []string{"connection refused", "no such host", "i/o timeout", "couldn't get current server API group list", "x509:", "tls:"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// rootCause strips client-go's repeated wrapping down to the transport error.
func rootCause(err error) string {
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return opErr.Error()
	}
	msg := err.Error()
	if strings.Contains(msg, "TLS handshake timeout") {
		// Something listens there but is not answering as an API server
		// would (client-go's transport waits 10s for the handshake).
		return "it accepted the connection but did not complete the TLS handshake within 10s"
	}
	if i := strings.LastIndex(msg, "dial tcp"); i >= 0 {
		return msg[i:]
	}
	return msg
}
