package rule

import "strings"

// Category is a root-cause class as reports render it: a root followed by
// refinements separated by "/" ("CrashLoop/Exit1/MissingEnv"). Build one
// from a root constant with Sub; the roots are the closed list below.
type Category string

// Sub refines c: CrashLoop.Sub("Exit1") is "CrashLoop/Exit1". Empty parts
// are skipped.
func (c Category) Sub(parts ...string) Category {
	s := string(c)
	for _, p := range parts {
		if p == "" {
			continue
		}
		if s != "" {
			s += "/"
		}
		s += p
	}
	return Category(s)
}

// Root is the first element: the area ("CrashLoop" of "CrashLoop/Exit1").
func (c Category) Root() Category {
	root, _, _ := strings.Cut(string(c), "/")
	return Category(root)
}

func (c Category) String() string { return string(c) }

// The roots. Reports, the scenario tables and the real captures match on
// these strings, so they never change.
const (
	Healthy Category = "Healthy"
	Unknown Category = "Unknown"
	Gone    Category = "Gone"

	// Pod layer.
	CrashLoop                  Category = "CrashLoop"
	OOMKilled                  Category = "OOMKilled"
	ImagePull                  Category = "ImagePull"
	Probe                      Category = "Probe"
	CreateContainerConfigError Category = "CreateContainerConfigError"
	CreateContainerError       Category = "CreateContainerError"
	RunContainerError          Category = "RunContainerError"
	ContainerFailed            Category = "ContainerFailed"
	// Running: a container that runs (and may be Ready) but fails at its
	// work, repeating an error in its current log.
	Running Category = "Running"
	// ReadinessGate: a pod whose containers are Ready waits for a readiness
	// gate's condition, which an outside controller sets.
	ReadinessGate Category = "ReadinessGate"
	ConfigMap     Category = "ConfigMap"
	InitContainer Category = "InitContainer"
	Evicted       Category = "Evicted"
	Terminating   Category = "Terminating"

	// Placement and infrastructure.
	Unschedulable Category = "Unschedulable"
	Node          Category = "Node"
	// Namespace: a Namespace target's own state (stuck Terminating).
	Namespace Category = "Namespace"
	PVC       Category = "PVC"
	Volume    Category = "Volume"

	// Workload layer.
	FailedCreate Category = "FailedCreate"
	Rollout      Category = "Rollout"
	Deployment   Category = "Deployment"
	ReplicaSet   Category = "ReplicaSet"
	StatefulSet  Category = "StatefulSet"
	DaemonSet    Category = "DaemonSet"
	Job          Category = "Job"
	CronJob      Category = "CronJob"
	HPA          Category = "HPA"

	// Service layer.
	Service Category = "Service"
	Ingress Category = "Ingress"
	// NetworkPolicy: a policy selecting the pods blocks their ingress or
	// egress (DNS included).
	NetworkPolicy Category = "NetworkPolicy"
)

// WithRoot is c under another root, its refinements kept:
// "CrashLoop/Exit1".WithRoot(ContainerFailed) is "ContainerFailed/Exit1".
func (c Category) WithRoot(root Category) Category {
	_, rest, _ := strings.Cut(string(c), "/")
	return root.Sub(rest)
}
