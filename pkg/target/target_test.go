package target

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string
		wantErr string
	}{
		{[]string{"web-0"}, []string{"pods", "web-0"}, ""},
		{[]string{"pod/web-0"}, []string{"pod/web-0"}, ""},
		{[]string{"deploy/web"}, []string{"deploy/web"}, ""},
		{[]string{"deployments.apps/web"}, []string{"deployments.apps/web"}, ""},
		{[]string{"deployment", "web"}, []string{"deployment", "web"}, ""},
		// A pod named like a type is named as a pod.
		{[]string{"pod/deploy"}, []string{"pod/deploy"}, ""},
		{[]string{"pod", "deploy"}, []string{"pod", "deploy"}, ""},
		// Words that only look like types are pod names.
		{[]string{"deployer"}, []string{"pods", "deployer"}, ""},
		{[]string{"svc-gateway"}, []string{"pods", "svc-gateway"}, ""},
		{[]string{"deploy.v2"}, []string{"pods", "deploy.v2"}, ""},
		{nil, nil, "you must name one resource"},
		{[]string{"pod/a", "pod/b"}, nil, "exactly one resource, got 2"},
		{[]string{"pod", "a", "b"}, nil, "exactly one resource, got 2"},
		{[]string{"pod/"}, nil, "you must specify the name of the pod to triage, e.g. kubectl triage pod/NAME"},
		{[]string{"web/"}, nil, "is not a resource"},
		{[]string{"/web"}, nil, "is not a resource"},
		{[]string{"a/b/c"}, nil, "is not a resource"},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.args)
		if tt.wantErr != "" {
			var ue *UsageError
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ue) {
				t.Errorf("Normalize(%q) err = %v, want usage error with %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tt.args, got, err, tt.want)
		}
	}
}

// TestBareType: a resource type with no name is an error that says a name
// is needed, in the user's spelling, as kubectl reads types (any case,
// plural, singular, short name, plural.group, a trailing slash); the
// namespace triage is offered for namespaced types only.
func TestBareType(t *testing.T) {
	const nsHint = "; to see what is failing in a whole namespace: kubectl triage ns/NAMESPACE"
	tests := []struct {
		arg  string
		want string
	}{
		{"deploy", "you must specify the name of the deployment to triage, e.g. kubectl triage deploy/NAME (list them with: kubectl get deploy)" + nsHint},
		{"deployment", "you must specify the name of the deployment to triage, e.g. kubectl triage deployment/NAME (list them with: kubectl get deployment)" + nsHint},
		{"deployments", "you must specify the name of the deployment to triage, e.g. kubectl triage deployments/NAME (list them with: kubectl get deployments)" + nsHint},
		{"Deployment", "you must specify the name of the deployment to triage, e.g. kubectl triage deployment/NAME (list them with: kubectl get deployment)" + nsHint},
		{"deployments.apps", "you must specify the name of the deployment to triage, e.g. kubectl triage deployments.apps/NAME (list them with: kubectl get deployments.apps)" + nsHint},
		{"deploy/", "you must specify the name of the deployment to triage, e.g. kubectl triage deploy/NAME (list them with: kubectl get deploy)" + nsHint},
		{"sts", "you must specify the name of the statefulset to triage, e.g. kubectl triage sts/NAME (list them with: kubectl get sts)" + nsHint},
		{"po", "you must specify the name of the pod to triage, e.g. kubectl triage po/NAME (list them with: kubectl get po)" + nsHint},
		{"pods", "you must specify the name of the pod to triage, e.g. kubectl triage pods/NAME (list them with: kubectl get pods)" + nsHint},
		{"svc", "you must specify the name of the service to triage, e.g. kubectl triage svc/NAME (list them with: kubectl get svc)" + nsHint},
		{"pvc", "you must specify the name of the persistentvolumeclaim to triage, e.g. kubectl triage pvc/NAME (list them with: kubectl get pvc)" + nsHint},
		{"cj", "you must specify the name of the cronjob to triage, e.g. kubectl triage cj/NAME (list them with: kubectl get cj)" + nsHint},
		{"ev", "you must specify the name of the event to triage, e.g. kubectl triage ev/NAME (list them with: kubectl get ev)" + nsHint},
		{"events.events.k8s.io", "you must specify the name of the event to triage, e.g. kubectl triage events.events.k8s.io/NAME (list them with: kubectl get events.events.k8s.io)" + nsHint},
		{"node", "you must specify the name of the node to triage, e.g. kubectl triage node/NAME (list them with: kubectl get node)"},
		{"no", "you must specify the name of the node to triage, e.g. kubectl triage no/NAME (list them with: kubectl get no)"},
		{"pv", "you must specify the name of the persistentvolume to triage, e.g. kubectl triage pv/NAME (list them with: kubectl get pv)"},
		{"ns", "you must specify the name of the namespace to triage, e.g. kubectl triage ns/NAME (list them with: kubectl get ns)"},
		{"crds", "you must specify the name of the customresourcedefinition to triage, e.g. kubectl triage crds/NAME (list them with: kubectl get crds)"},
	}
	for _, tt := range tests {
		_, err := Normalize([]string{tt.arg})
		var ue *UsageError
		if !errors.As(err, &ue) || err.Error() != tt.want {
			t.Errorf("Normalize(%q) = %v\nwant usage error %q", tt.arg, err, tt.want)
		}
	}
}

// TestBuiltinType: the spellings of a type; a group must be the type's own.
func TestBuiltinType(t *testing.T) {
	tests := []struct {
		word     string
		singular string // "" when not a type
	}{
		{"hpa", "horizontalpodautoscaler"},
		{"HPA", "horizontalpodautoscaler"},
		{"netpol", "networkpolicy"},
		{"ingresses.networking.k8s.io", "ingress"},
		{"ing.networking.k8s.io", "ingress"},
		{"rs.apps", "replicaset"},
		{"jobs.batch", "job"},
		{"deploy.batch", ""},       // not its group
		{"deployments.", ""},       // no group
		{"deployment-1", ""},       // a name
		{"endpoint", ""},           // kubectl has no such spelling (endpoints is singular too)
		{"configmap.v1", ""},       // a version is not a group
		{"widgets", ""},            // a custom resource: discovery's to tell
		{"selfsubjectreviews", ""}, // create-only: no object to triage
	}
	for _, tt := range tests {
		got, ok := builtinType(tt.word)
		if ok != (tt.singular != "") || got.singular != tt.singular {
			t.Errorf("builtinType(%q) = %q, %v; want %q", tt.word, got.singular, ok, tt.singular)
		}
	}
}

func TestPodName(t *testing.T) {
	for _, tt := range []struct {
		args []string
		name string
		ok   bool
	}{
		{[]string{"pod/api"}, "api", true},
		{[]string{"po/api"}, "api", true},
		{[]string{"pods", "api"}, "api", true},
		{[]string{"api"}, "api", true}, // a bare name is a pod
		{[]string{"deploy/api"}, "", false},
		{[]string{"pods.example.com/api"}, "", false}, // a custom resource named pods
		{[]string{"pod/"}, "", false},
		{nil, "", false},
	} {
		name, ok := PodName(tt.args)
		if name != tt.name || ok != tt.ok {
			t.Errorf("PodName(%q) = %q, %v; want %q, %v", tt.args, name, ok, tt.name, tt.ok)
		}
	}
}
