// Package install builds the manifests that run `kubectl triage watch` in a
// cluster: a namespace, a read-only identity, and a single-replica Deployment
// hardened as the restricted Pod Security Standard asks. It only builds and
// prints objects; applying them is the user's (kubectl apply), because the
// plugin never writes to a cluster.
package install

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-triage/kubectl-triage/pkg/leader"
)

// Defaults of Options.
const (
	DefaultNamespace   = "triage-system"
	DefaultName        = "kubectl-triage"
	DefaultMetricsAddr = ":9090"
	DefaultSlackKey    = "url"
	// ImageRepository is where released images are published; the tag is
	// the plugin's own version, so the printed manifests run the same code.
	ImageRepository = "ghcr.io/kubectl-triage/kubectl-triage"

	// Paths inside the container. The root filesystem is read-only: the
	// workspaces and HOME (client-go's discovery cache) are emptyDirs.
	binaryPath    = "/kubectl-triage"
	workspaceDir  = "/var/lib/kubectl-triage"
	workspaceRoot = workspaceDir + "/incidents"
	tmpDir        = "/tmp"
	// nonRootID is the conventional "nonroot" user of distroless images,
	// the user the image (make image) runs as.
	nonRootID = 65532
)

// Options choose what the manifests run.
type Options struct {
	Namespace string // where the watch runs
	Name      string // of the namespaced objects; the cluster-scoped ones add the namespace
	Image     string
	Version   string // app.kubernetes.io/version label
	Replicas  int32
	// Source and MCPEndpoint are watch's --source and --mcp-endpoint.
	Source      string
	MCPEndpoint string
	Agent       string
	// MetricsAddr is watch's --metrics-addr inside the pod: its port is the
	// container's metrics port, probed on /healthz and served by the Service.
	MetricsAddr string
	// SlackWebhookSecret names a Secret in Namespace whose SlackWebhookKey
	// holds the webhook URL, passed as SLACK_WEBHOOK_URL (never on the
	// command line, where `kubectl get pod -o yaml` would show it).
	SlackWebhookSecret string
	SlackWebhookKey    string
	// Store is watch's --store: incidents go to object storage, and the
	// pod keeps no copy on its emptyDir. StoreSecret names a Secret in
	// Namespace whose keys become the pod's environment (the provider's
	// settings: AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, AWS_…), so no
	// credential is in the Deployment.
	Store       string
	StoreSecret string
	// AllowDefaultNamespace lets Namespace be "default" (--allow-default-
	// namespace); the Namespace object is then left out, so the manifests
	// do not relabel a namespace other workloads share.
	AllowDefaultNamespace bool
}

// LeaseName is the leader-election Lease of the installed watch: the
// Deployment passes it to watch (--leader-elect-lease-name), and the Role
// grants get and update on it alone. It is the name watch derives by
// itself, so an upgrade keeps the Lease the running replicas hold.
func (o Options) LeaseName() string { return leader.LeaseName(o.Source, o.MCPEndpoint, "") }

// systemNamespacePrefix is reserved for Kubernetes' own namespaces
// (https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/).
const systemNamespacePrefix = "kube-"

// validateNamespace refuses the namespaces the manifests must not take over:
// they relabel their Namespace (Pod Security restricted) and write a Lease
// there, which in kube-system sits beside the control plane's own.
func (o Options) validateNamespace() error {
	switch {
	case strings.HasPrefix(o.Namespace, systemNamespacePrefix):
		return fmt.Errorf("refusing to install into system namespace %q: the manifests would relabel it and write a Lease beside the control plane's; use a namespace of its own, e.g. -n %s", o.Namespace, DefaultNamespace)
	case o.Namespace == metav1.NamespaceDefault && !o.AllowDefaultNamespace:
		return fmt.Errorf("refusing to install into namespace %q, which other workloads share: use a namespace of its own, e.g. -n %s, or add --allow-default-namespace (the Namespace is then left as it is)", o.Namespace, DefaultNamespace)
	}
	return nil
}

// Validate checks o before anything is built.
func (o Options) Validate() error {
	for _, v := range []struct{ flag, value string }{{"--namespace", o.Namespace}, {"--name", o.Name}} {
		if errs := validation.IsDNS1123Label(v.value); len(errs) > 0 {
			return fmt.Errorf("invalid %s %q: %s", v.flag, v.value, errs[0])
		}
	}
	if err := o.validateNamespace(); err != nil {
		return err
	}
	if o.Image == "" {
		return fmt.Errorf("--image is empty")
	}
	if o.Replicas < 1 {
		return fmt.Errorf("invalid --replicas %d: at least 1", o.Replicas)
	}
	if o.Replicas > 1 && o.Store == "" {
		// Each pod keeps incidents on its own emptyDir: a new leader could
		// not see what the old one triaged, and would triage it again.
		return fmt.Errorf("--replicas %d needs --store: replicas learn what the leader before them triaged only from the object store", o.Replicas)
	}
	switch o.Source {
	case "cluster":
		if o.MCPEndpoint != "" {
			return fmt.Errorf("--mcp-endpoint is for --source mcp, not %q", o.Source)
		}
	case "mcp":
		u, err := url.Parse(o.MCPEndpoint)
		if o.MCPEndpoint == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--source mcp needs --mcp-endpoint, the server's http(s) URL as seen from the pod, e.g. http://kubernetes-mcp-server.mcp:8080/mcp")
		}
		if u.User != nil {
			return fmt.Errorf("--mcp-endpoint must not carry credentials: they would be readable in the Deployment")
		}
	default:
		return fmt.Errorf("invalid --source %q: cluster or mcp", o.Source)
	}
	if o.Agent != "builtin" {
		// The image holds the plugin alone: no agent CLI, no model credentials.
		return fmt.Errorf("invalid --agent %q: only builtin runs in the cluster (the image holds no agent CLI)", o.Agent)
	}
	if _, err := o.metricsPort(); err != nil {
		return err
	}
	if o.SlackWebhookSecret != "" {
		if errs := validation.IsDNS1123Subdomain(o.SlackWebhookSecret); len(errs) > 0 {
			return fmt.Errorf("invalid --slack-webhook-secret %q: %s", o.SlackWebhookSecret, errs[0])
		}
		if errs := validation.IsConfigMapKey(o.SlackWebhookKey); len(errs) > 0 {
			return fmt.Errorf("invalid --slack-webhook-secret-key %q: %s", o.SlackWebhookKey, errs[0])
		}
	}
	return o.validateStore()
}

// validateStore checks --store and --store-secret.
func (o Options) validateStore() error {
	if o.Store == "" {
		if o.StoreSecret != "" {
			return fmt.Errorf("--store-secret is for --store: give the store's URL too")
		}
		return nil
	}
	u, err := url.Parse(o.Store)
	if err != nil || u.Host == "" || (u.Scheme != "azblob" && u.Scheme != "s3" && u.Scheme != "gs") {
		return fmt.Errorf("invalid --store %q: azblob://CONTAINER, s3://BUCKET or gs://BUCKET (a file:// store would be the pod's own emptyDir)", o.Store)
	}
	if u.User != nil || u.Query().Has("sig") {
		return fmt.Errorf("--store must not carry credentials: they would be readable in the Deployment; put them in --store-secret")
	}
	if o.StoreSecret != "" {
		if errs := validation.IsDNS1123Subdomain(o.StoreSecret); len(errs) > 0 {
			return fmt.Errorf("invalid --store-secret %q: %s", o.StoreSecret, errs[0])
		}
	}
	return nil
}

func (o Options) metricsPort() (int32, error) {
	_, p, err := net.SplitHostPort(o.MetricsAddr)
	if err != nil {
		return 0, fmt.Errorf("invalid --metrics-addr %q: %v", o.MetricsAddr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("invalid --metrics-addr %q: the port must be 1-65535", o.MetricsAddr)
	}
	return int32(n), nil
}

// Objects are the manifests, in the order kubectl apply needs them
// (namespace and identity before what uses them).
func Objects(o Options) ([]runtime.Object, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	port, _ := o.metricsPort()
	labels := map[string]string{
		"app.kubernetes.io/name":     "kubectl-triage",
		"app.kubernetes.io/instance": o.Name,
	}
	// A development build's version ("v0.0.0-abc+dirty") may not be a valid
	// label value: then the label is left out rather than rejected.
	if o.Version != "" && len(validation.IsValidLabelValue(o.Version)) == 0 {
		labels["app.kubernetes.io/version"] = o.Version
	}
	selector := map[string]string{"app.kubernetes.io/name": "kubectl-triage", "app.kubernetes.io/instance": o.Name}
	meta := func(name, ns string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}
	}
	// Cluster-scoped names carry the namespace, so two installations do not
	// share (and overwrite) one role.
	clusterName := o.Name + ":" + o.Namespace
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: o.Name, Namespace: o.Namespace}}

	var objs []runtime.Object
	if o.Namespace != metav1.NamespaceDefault {
		objs = append(objs, &corev1.Namespace{TypeMeta: typeMeta("v1", "Namespace"), ObjectMeta: metav1.ObjectMeta{Name: o.Namespace, Labels: mergeLabels(labels, map[string]string{
			// The Deployment meets the restricted standard: let the API
			// server hold every pod here to it.
			"pod-security.kubernetes.io/enforce": "restricted",
		})}})
	}
	objs = append(objs,
		&corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: meta(o.Name, o.Namespace)},
		&rbacv1.ClusterRole{TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "ClusterRole"), ObjectMeta: meta(clusterName, ""), Rules: readOnlyRules()},
		&rbacv1.ClusterRoleBinding{TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"), ObjectMeta: meta(clusterName, ""),
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterName}, Subjects: subject},
		&rbacv1.Role{TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "Role"), ObjectMeta: meta(o.Name+"-leases", o.Namespace), Rules: leaseRules(o.LeaseName())},
		&rbacv1.RoleBinding{TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "RoleBinding"), ObjectMeta: meta(o.Name+"-leases", o.Namespace),
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: o.Name + "-leases"}, Subjects: subject},
		&corev1.Service{TypeMeta: typeMeta("v1", "Service"), ObjectMeta: meta(o.Name+"-metrics", o.Namespace), Spec: corev1.ServiceSpec{
			Selector: selector,
			Ports:    []corev1.ServicePort{{Name: "metrics", Port: port, TargetPort: intstr.FromString("metrics"), Protocol: corev1.ProtocolTCP}},
		}},
		&policyv1.PodDisruptionBudget{TypeMeta: typeMeta("policy/v1", "PodDisruptionBudget"), ObjectMeta: meta(o.Name, o.Namespace), Spec: policyv1.PodDisruptionBudgetSpec{
			// maxUnavailable, not minAvailable: with one replica a drain
			// must still be able to move it.
			MaxUnavailable: ptr(intstr.FromInt32(1)),
			Selector:       &metav1.LabelSelector{MatchLabels: selector},
		}},
		deployment(o, meta(o.Name, o.Namespace), selector, port),
	)
	return objs, nil
}

// leaseRules are the only writes the process ever makes: its leader-election
// Lease (watch --leader-elect, through a client that can touch nothing
// else), with the verbs client-go's Lease lock uses. get and update name the
// Lease, so no other Lease of the namespace can be read or taken over;
// create cannot be limited to a name (the name is not known when the
// request is authorized, https://kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-resources),
// so it is a rule of its own, and creating a Lease grants no right on it.
func leaseRules(lease string) []rbacv1.PolicyRule {
	leases := func(verbs []string, names ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: names, Verbs: verbs}
	}
	return []rbacv1.PolicyRule{leases([]string{"get", "update"}, lease), leases([]string{"create"})}
}

// readOnlyRules are what one-shot triage, watch (both sources) and the
// reconciling scan read: the view ClusterRole's workload resources plus the
// cluster-scoped ones view leaves out (README "Read-only, by construction").
// Spelled out rather than bound to view, because view's content depends on
// the aggregation controller; and no Secrets, ever.
func readOnlyRules() []rbacv1.PolicyRule {
	read := []string{"get", "list", "watch"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Verbs: read, Resources: []string{
			"pods", "pods/log", "pods/status", "events", "services", "endpoints", "configmaps",
			"persistentvolumeclaims", "replicationcontrollers", "serviceaccounts", "resourcequotas", "limitranges",
			"namespaces", "nodes", "persistentvolumes",
		}},
		{APIGroups: []string{"apps"}, Verbs: read, Resources: []string{"deployments", "replicasets", "statefulsets", "daemonsets", "controllerrevisions"}},
		{APIGroups: []string{"batch"}, Verbs: read, Resources: []string{"jobs", "cronjobs"}},
		{APIGroups: []string{"autoscaling"}, Verbs: read, Resources: []string{"horizontalpodautoscalers"}},
		{APIGroups: []string{"policy"}, Verbs: read, Resources: []string{"poddisruptionbudgets"}},
		{APIGroups: []string{"networking.k8s.io"}, Verbs: read, Resources: []string{"ingresses", "ingressclasses", "networkpolicies"}},
		{APIGroups: []string{"discovery.k8s.io"}, Verbs: read, Resources: []string{"endpointslices"}},
		{APIGroups: []string{"events.k8s.io"}, Verbs: read, Resources: []string{"events"}},
		{APIGroups: []string{"storage.k8s.io"}, Verbs: read, Resources: []string{"storageclasses", "volumeattachments", "csidrivers", "csinodes"}},
		{APIGroups: []string{"scheduling.k8s.io"}, Verbs: read, Resources: []string{"priorityclasses"}},
		{APIGroups: []string{"node.k8s.io"}, Verbs: read, Resources: []string{"runtimeclasses"}},
	}
}

// watchArgs are the container's arguments: only flags `kubectl triage
// watch` accepts today.
func watchArgs(o Options) []string {
	args := []string{"watch",
		"--source=" + o.Source,
		"--agent=" + o.Agent,
		"--metrics-addr=" + o.MetricsAddr,
		"--workspace-root=" + workspaceRoot,
		"--log-format=json",
		// An emptyDir is bounded: keep a few days of incidents, not all.
		"--retention=72h",
		// Always, so scaling up never makes two replicas triage the same
		// fault; the Lease is in the pod's own namespace, named as the
		// Role allows.
		"--leader-elect",
		"--leader-elect-lease-name=" + o.LeaseName(),
	}
	if o.Source == "mcp" {
		args = append(args, "--mcp-endpoint="+o.MCPEndpoint)
	}
	if o.Store != "" {
		// Once stored, the emptyDir copy would only fill the emptyDir.
		args = append(args, "--store="+o.Store, "--keep-local=false")
	}
	return args
}

func deployment(o Options, meta metav1.ObjectMeta, selector map[string]string, port int32) *appsv1.Deployment {
	env := []corev1.EnvVar{
		// The discovery cache and anything else under HOME go to an emptyDir.
		{Name: "HOME", Value: tmpDir},
	}
	if o.SlackWebhookSecret != "" {
		env = append(env, corev1.EnvVar{Name: "SLACK_WEBHOOK_URL", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: o.SlackWebhookSecret}, Key: o.SlackWebhookKey,
		}}})
	}
	healthz := corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("metrics")}}
	id := int64(nonRootID)
	container := corev1.Container{
		Name:  "watch",
		Image: o.Image,
		// The command is explicit, so any image with the binary at
		// /kubectl-triage works, whatever its entrypoint.
		Command: []string{binaryPath},
		Args:    watchArgs(o),
		Env:     env,
		EnvFrom: storeEnv(o),
		Ports:   []corev1.ContainerPort{{Name: "metrics", ContainerPort: port, Protocol: corev1.ProtocolTCP}},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
		},
		LivenessProbe:  &corev1.Probe{ProbeHandler: healthz, InitialDelaySeconds: 10, PeriodSeconds: 20, TimeoutSeconds: 5, FailureThreshold: 3},
		ReadinessProbe: &corev1.Probe{ProbeHandler: healthz, PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 3},
		SecurityContext: &corev1.SecurityContext{
			RunAsNonRoot:             ptr(true),
			RunAsUser:                &id,
			RunAsGroup:               &id,
			ReadOnlyRootFilesystem:   ptr(true),
			AllowPrivilegeEscalation: ptr(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "workspaces", MountPath: workspaceDir}, {Name: "tmp", MountPath: tmpDir}},
	}
	podLabels := mergeLabels(meta.Labels, nil)
	return &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: meta,
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(o.Replicas),
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			// A rolling update keeps a replica watching throughout: the new
			// pod joins as a follower, and the old one hands the Lease over
			// when it stops (watch --leader-elect), so none triages a fault
			// twice.
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: ptr(intstr.FromInt32(0)), MaxSurge: ptr(intstr.FromInt32(1)),
			}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					ServiceAccountName:           o.Name,
					AutomountServiceAccountToken: ptr(true), // watch uses the in-cluster config
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr(true),
						RunAsUser:      &id,
						RunAsGroup:     &id,
						FSGroup:        &id,
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{container},
					// Finished triages must not be cut off mid-write: watch
					// drains for up to --drain-timeout (2m) on SIGTERM.
					TerminationGracePeriodSeconds: ptr(int64(150)),
					Volumes: []corev1.Volume{
						{Name: "workspaces", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr(resource.MustParse("1Gi"))}}},
						{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr(resource.MustParse("256Mi"))}}},
					},
				},
			},
		},
	}
}

// Render writes objs as one YAML stream, "---" separated, without the
// empty status and creationTimestamp the typed structs would add.
func Render(w io.Writer, objs []runtime.Object) error {
	var b bytes.Buffer
	for i, obj := range objs {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return fmt.Errorf("convert %T: %w", obj, err)
		}
		delete(u, "status")
		if spec, ok := u["spec"].(map[string]any); ok && len(spec) == 0 {
			delete(u, "spec") // a Namespace's
		}
		pruneCreationTimestamp(u)
		out, err := yaml.Marshal(u)
		if err != nil {
			return fmt.Errorf("marshal %T: %w", obj, err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(out)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// pruneCreationTimestamp removes every metadata.creationTimestamp: null,
// also the pod template's.
func pruneCreationTimestamp(m map[string]any) {
	for k, v := range m {
		switch v := v.(type) {
		case map[string]any:
			if k == "metadata" {
				if ts, ok := v["creationTimestamp"]; ok && ts == nil {
					delete(v, "creationTimestamp")
				}
			}
			pruneCreationTimestamp(v)
		}
	}
}

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

func mergeLabels(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// storeEnv is --store-secret's keys as the container's environment.
func storeEnv(o Options) []corev1.EnvFromSource {
	if o.StoreSecret == "" {
		return nil
	}
	return []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: o.StoreSecret}}}}
}
