package target

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"
)

// lookup reads the one object TYPE NAME (or TYPE/NAME) names, as kubectl
// get reads it: the type through the REST mapper (plural, singular, short
// name or kind, optionally .version.group), the object by one GET in
// namespace when the type is namespaced. norm is Normalize's output.
func lookup(getter kubeflags.RESTClientGetter, namespace string, norm []string) (*Target, error) {
	typ, name := "", ""
	switch len(norm) {
	case 1:
		typ, name, _ = strings.Cut(norm[0], "/")
	case 2:
		typ, name = norm[0], norm[1]
	}
	mapper, err := getter.ToRESTMapper()
	if err != nil {
		return nil, err
	}
	mapping, err := mappingFor(mapper, typ)
	if err != nil {
		return nil, err
	}
	cfg, err := getter.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var r dynamic.ResourceInterface = client.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		r = client.Resource(mapping.Resource).Namespace(namespace)
	}
	obj, err := r.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return &Target{Mapping: mapping, Object: obj}, nil
}

// mappingFor maps a type argument as kubectl does: as a resource first
// (deployments, deploy, deployment.v1.apps), then as a kind (Deployment).
// An unknown type is meta's no-match error, which Explain recognises.
func mappingFor(mapper meta.RESTMapper, arg string) (*meta.RESTMapping, error) {
	full, gr := schema.ParseResourceArg(arg)
	var gvk schema.GroupVersionKind
	if full != nil {
		gvk, _ = mapper.KindFor(*full)
	}
	if gvk.Empty() {
		gvk, _ = mapper.KindFor(gr.WithVersion(""))
	}
	if !gvk.Empty() {
		return mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	fullKind, gk := schema.ParseKindArg(arg)
	if fullKind == nil {
		gvk := gk.WithVersion("")
		fullKind = &gvk
	}
	if !fullKind.Empty() {
		if m, err := mapper.RESTMapping(fullKind.GroupKind(), fullKind.Version); err == nil {
			return m, nil
		}
	}
	m, err := mapper.RESTMapping(gk)
	if err != nil {
		if meta.IsNoMatchError(err) {
			return nil, &meta.NoResourceMatchError{PartialResource: gr.WithVersion("")}
		}
		return nil, fmt.Errorf("mapping %q: %w", arg, err)
	}
	return m, nil
}
