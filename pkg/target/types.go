package target

import (
	"fmt"
	"strings"
)

// resourceType is a built-in resource as `kubectl api-resources` lists it:
// how a user may type it (plural, singular, short names, plural.group).
type resourceType struct {
	plural, singular, group string
	short                   []string
	clusterScoped           bool
}

// builtinTypes are the Kubernetes API's own resources that can be read by
// name (the create-only reviews are left out), with the short names the API
// server declares for them (test/e2e checks the table against a real API
// server's discovery). A bare word that is one of these is a type
// missing its name, not a pod; a custom resource's type is recognised
// through discovery instead (Resolve).
var builtinTypes = []resourceType{
	{"pods", "pod", "", []string{"po"}, false},
	{"services", "service", "", []string{"svc"}, false},
	{"configmaps", "configmap", "", []string{"cm"}, false},
	{"secrets", "secret", "", nil, false},
	{"endpoints", "endpoints", "", []string{"ep"}, false},
	{"events", "event", "", []string{"ev"}, false},
	{"events", "event", "events.k8s.io", []string{"ev"}, false},
	{"limitranges", "limitrange", "", []string{"limits"}, false},
	{"namespaces", "namespace", "", []string{"ns"}, true},
	{"nodes", "node", "", []string{"no"}, true},
	{"persistentvolumeclaims", "persistentvolumeclaim", "", []string{"pvc"}, false},
	{"persistentvolumes", "persistentvolume", "", []string{"pv"}, true},
	{"podtemplates", "podtemplate", "", nil, false},
	{"replicationcontrollers", "replicationcontroller", "", []string{"rc"}, false},
	{"resourcequotas", "resourcequota", "", []string{"quota"}, false},
	{"serviceaccounts", "serviceaccount", "", []string{"sa"}, false},
	{"componentstatuses", "componentstatus", "", []string{"cs"}, true},
	{"deployments", "deployment", "apps", []string{"deploy"}, false},
	{"replicasets", "replicaset", "apps", []string{"rs"}, false},
	{"statefulsets", "statefulset", "apps", []string{"sts"}, false},
	{"daemonsets", "daemonset", "apps", []string{"ds"}, false},
	{"controllerrevisions", "controllerrevision", "apps", nil, false},
	{"jobs", "job", "batch", nil, false},
	{"cronjobs", "cronjob", "batch", []string{"cj"}, false},
	{"horizontalpodautoscalers", "horizontalpodautoscaler", "autoscaling", []string{"hpa"}, false},
	{"ingresses", "ingress", "networking.k8s.io", []string{"ing"}, false},
	{"ingressclasses", "ingressclass", "networking.k8s.io", nil, true},
	{"networkpolicies", "networkpolicy", "networking.k8s.io", []string{"netpol"}, false},
	{"endpointslices", "endpointslice", "discovery.k8s.io", nil, false},
	{"ipaddresses", "ipaddress", "networking.k8s.io", []string{"ip"}, true},
	{"servicecidrs", "servicecidr", "networking.k8s.io", nil, true},
	{"poddisruptionbudgets", "poddisruptionbudget", "policy", []string{"pdb"}, false},
	{"storageclasses", "storageclass", "storage.k8s.io", []string{"sc"}, true},
	{"volumeattachments", "volumeattachment", "storage.k8s.io", nil, true},
	{"csidrivers", "csidriver", "storage.k8s.io", nil, true},
	{"csinodes", "csinode", "storage.k8s.io", nil, true},
	{"csistoragecapacities", "csistoragecapacity", "storage.k8s.io", nil, false},
	{"volumeattributesclasses", "volumeattributesclass", "storage.k8s.io", []string{"vac"}, true},
	{"storageversionmigrations", "storageversionmigration", "storagemigration.k8s.io", nil, true},
	{"priorityclasses", "priorityclass", "scheduling.k8s.io", []string{"pc"}, true},
	{"runtimeclasses", "runtimeclass", "node.k8s.io", nil, true},
	{"resourceclaims", "resourceclaim", "resource.k8s.io", nil, false},
	{"resourceclaimtemplates", "resourceclaimtemplate", "resource.k8s.io", nil, false},
	{"resourceslices", "resourceslice", "resource.k8s.io", nil, true},
	{"deviceclasses", "deviceclass", "resource.k8s.io", nil, true},
	{"devicetaintrules", "devicetaintrule", "resource.k8s.io", nil, true},
	{"leases", "lease", "coordination.k8s.io", nil, false},
	{"roles", "role", "rbac.authorization.k8s.io", nil, false},
	{"rolebindings", "rolebinding", "rbac.authorization.k8s.io", nil, false},
	{"clusterroles", "clusterrole", "rbac.authorization.k8s.io", nil, true},
	{"clusterrolebindings", "clusterrolebinding", "rbac.authorization.k8s.io", nil, true},
	{"certificatesigningrequests", "certificatesigningrequest", "certificates.k8s.io", []string{"csr"}, true},
	{"clustertrustbundles", "clustertrustbundle", "certificates.k8s.io", nil, true},
	{"podcertificaterequests", "podcertificaterequest", "certificates.k8s.io", nil, false},
	{"customresourcedefinitions", "customresourcedefinition", "apiextensions.k8s.io", []string{"crd", "crds"}, true},
	{"apiservices", "apiservice", "apiregistration.k8s.io", nil, true},
	{"mutatingwebhookconfigurations", "mutatingwebhookconfiguration", "admissionregistration.k8s.io", nil, true},
	{"validatingwebhookconfigurations", "validatingwebhookconfiguration", "admissionregistration.k8s.io", nil, true},
	{"validatingadmissionpolicies", "validatingadmissionpolicy", "admissionregistration.k8s.io", nil, true},
	{"validatingadmissionpolicybindings", "validatingadmissionpolicybinding", "admissionregistration.k8s.io", nil, true},
	{"mutatingadmissionpolicies", "mutatingadmissionpolicy", "admissionregistration.k8s.io", nil, true},
	{"mutatingadmissionpolicybindings", "mutatingadmissionpolicybinding", "admissionregistration.k8s.io", nil, true},
	{"flowschemas", "flowschema", "flowcontrol.apiserver.k8s.io", nil, true},
	{"prioritylevelconfigurations", "prioritylevelconfiguration", "flowcontrol.apiserver.k8s.io", nil, true},
}

// builtinType finds the built-in resource a word names, the way kubectl
// reads a type: any case, plural, singular or short name, optionally with
// its group (deployments.apps, deploy.apps).
func builtinType(word string) (resourceType, bool) {
	w := strings.ToLower(word)
	for _, t := range builtinTypes {
		for _, name := range append([]string{t.plural, t.singular}, t.short...) {
			if w == name || t.group != "" && w == name+"."+t.group {
				return t, true
			}
		}
	}
	return resourceType{}, false
}

// nameNeeded is the error for a resource type given without a name: typed
// is the type as the user wrote it, singular the type's name in prose. For
// a namespaced type it points at the namespace triage too, the nearest
// thing to "whatever of these is failing".
func nameNeeded(typed, singular string, namespaced bool) error {
	typed = strings.ToLower(typed)
	hint := ""
	if namespaced {
		hint = "; to see what is failing in a whole namespace: kubectl triage ns/NAMESPACE"
	}
	return &UsageError{fmt.Sprintf("you must specify the name of the %s to triage, e.g. kubectl triage %s/NAME (list them with: kubectl get %s)%s",
		singular, typed, typed, hint)}
}

// PodName is the pod's name when args (as Normalize accepts them) name a
// core pod, before anything is resolved: pod/NAME, pods NAME, po/NAME or a
// bare NAME. A custom resource type that happens to be called pod is the
// REST mapper's to find, so only the lowercase built-in spellings
// count.
func PodName(args []string) (string, bool) {
	norm, err := Normalize(args)
	if err != nil {
		return "", false
	}
	typ, name := "", ""
	switch len(norm) {
	case 1:
		typ, name, _ = strings.Cut(norm[0], "/")
	case 2:
		typ, name = norm[0], norm[1]
	}
	switch typ {
	case "pod", "pods", "po":
		return name, name != ""
	}
	return "", false
}
