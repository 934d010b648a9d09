// Package registry lists the builtin investigator's rules, in the order
// their hypotheses are reported. A new rule is added here and nowhere else.
package registry

import (
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/autoscaling"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/batch"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/gone"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/namespace"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/network"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/node"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/pod"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/scheduling"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/storage"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

// Rules is the catalogue in report order: the target gone, then a pod's own
// containers, its placement and node, the workload around it, the traffic
// to it, its storage and its autoscaler.
var Rules = []*rule.Rule{
	gone.ResourceGone,

	pod.OOMKilled,
	pod.CrashLoop,
	pod.ImagePull,
	pod.Probe,
	pod.ConfigError,
	pod.RuntimeError,
	pod.Sandbox,
	pod.ConfigSource,
	pod.EnvSpec,
	pod.ListenPort,
	pod.NoSpace,
	pod.DataDir,
	pod.ReadOnlyRoot,
	pod.VolumePermission,
	pod.ServiceLink,
	pod.EnvValue,
	pod.SettingOrigin,
	pod.MountShadow,
	pod.MountedFile,
	pod.VolumeLock,
	pod.RBACDenied,
	pod.NotOOMKilled,
	pod.Evicted,
	pod.Rejected,
	pod.StuckTerminating,
	pod.InitRunning,
	pod.RunningErrors,
	pod.ReadinessGate,
	pod.LifecycleHook,

	scheduling.Unschedulable,

	node.NotReady,
	node.Pressure,
	node.NetworkUnavailable,
	node.Cordoned,
	node.Uninitialized,
	node.Marked,
	node.ProblemCondition,
	node.PodNode,

	namespace.Terminating,

	workload.FailedCreate,
	workload.Rollout,
	workload.StatefulSetOrdinals,
	workload.StatefulSetBrokenRevision,
	workload.UpdateHeld,
	workload.DaemonSetCoverage,
	batch.JobFailed,
	batch.JobRetrying,
	batch.JobSidecar,
	batch.CronJob,
	batch.CronJobRunsPileUp,
	workload.ReplicaSetPods,

	network.ServiceEndpoints,
	network.ServiceRevisionPinned,
	network.ServiceOtherWorkload,
	network.ServiceLoadBalancer,
	network.ServiceLBNodes,
	network.DependencyService,
	network.DependencyVersion,
	network.InitDependency,
	network.ServiceTargetPort,
	network.ServiceListenPort,
	network.IngressBackends,
	network.IngressBackendType,
	network.IngressClass,
	network.IngressTLS,
	network.IngressControllerError,
	network.IngressControllerDown,
	network.IngressLBUnhealthy,
	network.PolicyBlocks,
	network.ServiceNearMiss,
	network.HeadlessDiscovery,

	storage.PVCPending,
	storage.VolumeAttachMount,
	storage.PVCResize,

	autoscaling.HPA,
}

// Needs is the collection plan for a target of this kind: the evidence the
// rules that apply to it need (bundle.Options.Needs).
func Needs(kind string) []rule.Need { return rule.Plan(Rules, kind) }
