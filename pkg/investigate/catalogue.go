package investigate

import (
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/autoscaling"
	gone "github.com/kubectl-triage/kubectl-triage/pkg/rules/gone"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/network"
	noderules "github.com/kubectl-triage/kubectl-triage/pkg/rules/node"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/scheduling"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/storage"
)

// The catalogue: each rule declared with its contract (see package rule).
// Rules is the order their hypotheses are reported in.
var Rules = concat(goneRules, containerRules, containerMoreRules, initRules, schedulingRules, nodeRules, workloadRules, networkRules, storageRules)

func concat(lists ...[]*rule.Rule) []*rule.Rule {
	var out []*rule.Rule
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var goneRules = []*rule.Rule{gone.ResourceGone}

var (
	oomKilledRule = &rule.Rule{Meta: rule.Meta{
		ID: "pod/oomkilled", Layer: rule.PodLayer, Needs: rule.PodEvidence,
		Doc: "A container the kernel killed for exceeding its memory limit (reason OOMKilled).",
	}, Check: checkOOMKilled}
	crashLoopRule = &rule.Rule{Meta: rule.Meta{
		ID: "pod/crashloop", Layer: rule.PodLayer, Needs: rule.PodEvidence,
		Doc: "A container that keeps exiting: its exit code and the decisive line of its previous log.",
	}, Check: checkCrashLoop}
	imagePullRule = &rule.Rule{Meta: rule.Meta{
		ID: "pod/image-pull", Layer: rule.PodLayer, Needs: rule.PodEvidence,
		Doc: "An image the kubelet cannot pull: wrong name or tag, missing credentials, unreachable registry.",
	}, Check: checkImagePull}
)

var containerRules = []*rule.Rule{oomKilledRule, crashLoopRule, imagePullRule}

var containerMoreRules = []*rule.Rule{
	probeRule,
	configErrorRule,
	runtimeErrorRule,
	configSourceRule,
	notOOMKilledRule,
	evictedRule,
	stuckTerminatingRule,
}

var initRules = []*rule.Rule{initRunningRule}

var schedulingRules = []*rule.Rule{scheduling.Unschedulable}

var nodeRules = []*rule.Rule{
	noderules.NotReady,
	noderules.Pressure,
	noderules.NetworkUnavailable,
	noderules.Cordoned,
	noderules.PodNode,
}

// podLevelRules are what explains a pod on its own (layers pod, placement
// and infrastructure): the rules the workload rules read to quote a pod's
// cause and defer to it instead of competing with it.
var podLevelRules = concat(containerRules, containerMoreRules, initRules, schedulingRules, []*rule.Rule{noderules.PodNode, storage.PVCPending, storage.VolumeAttachMount})

var workloadNeeds = []rule.Need{rule.Pods, rule.Owners, rule.Events, rule.Logs}

var workloadRules = []*rule.Rule{
	failedCreateRule,
	rolloutRule,
	statefulSetOrdinalsRule,
	daemonSetCoverageRule,
	jobFailedRule,
	jobRetryingRule,
	cronJobRule,
	cronJobRunsPileUpRule,
	replicaSetPodsRule,
}

var networkRules = []*rule.Rule{
	network.ServiceEndpoints,
	network.ServiceTargetPort,
	network.IngressBackends,
	network.IngressClass,
}

var storageRules = []*rule.Rule{
	storage.PVCPending,
	storage.VolumeAttachMount,
	// The HPA rule stays where the report order has always had it.
	autoscaling.HPA,
}

var probeRule = &rule.Rule{Meta: rule.Meta{ID: "pod/probe", Layer: rule.PodLayer, Needs: rule.PodEvidence,
	Doc: "Liveness, readiness or startup probes that fail, and why (wrong port or path, too short a delay)."}, Check: checkProbes}

var configErrorRule = &rule.Rule{Meta: rule.Meta{ID: "pod/config-error", Layer: rule.PodLayer, Needs: append([]rule.Need{rule.ConfigMaps, rule.ServiceAccounts}, rule.PodEvidence...),
	Doc: "The kubelet refuses to create a container (CreateContainerConfigError): a missing ConfigMap, Secret or key."}, Check: checkContainerConfigError}

var runtimeErrorRule = &rule.Rule{Meta: rule.Meta{ID: "pod/runtime-error", Layer: rule.PodLayer, Needs: rule.PodEvidence,
	Doc: "The runtime cannot create or start a container (CreateContainerError, RunContainerError, StartError)."}, Check: checkRuntimeError}

var configSourceRule = &rule.Rule{Meta: rule.Meta{ID: "pod/config-source", Layer: rule.PodLayer, Requires: nil, Needs: append([]rule.Need{rule.ConfigMaps}, rule.PodEvidence...),
	Doc: "A crashing container's missing setting traced to the ConfigMap its spec takes it from."}, Check: checkConfigSource}

var notOOMKilledRule = &rule.Rule{Meta: rule.Meta{ID: "pod/not-oomkilled", Layer: rule.PodLayer, Needs: rule.PodEvidence,
	Doc: "An exit code 137 that was not the kernel's OOM killer, said honestly."}, Check: checkNotOOMKilled}

var evictedRule = &rule.Rule{Meta: rule.Meta{ID: "pod/evicted", Layer: rule.PodLayer, Needs: rule.PodEvidence,
	Doc: "A pod the kubelet evicted for exceeding its own ephemeral-storage or memory use."}, Check: checkEvicted}

var stuckTerminatingRule = &rule.Rule{Meta: rule.Meta{ID: "pod/stuck-terminating", Layer: rule.PodLayer, Needs: append([]rule.Need{rule.Nodes}, rule.PodEvidence...),
	Doc: "A pod past its grace period that does not go away: finalizers, or a kubelet that does not confirm."}, Check: checkStuckTerminating}

var initRunningRule = &rule.Rule{Meta: rule.Meta{
	ID: "pod/init-running", Layer: rule.PodLayer, Needs: rule.PodEvidence,
	Doc: "A pod held in Init by an init container that keeps waiting for something (a wait loop).",
}, Check: checkInitRunning}

var failedCreateRule = &rule.Rule{Meta: rule.Meta{ID: "workload/failed-create", Layer: rule.WorkloadLayer, Needs: append([]rule.Need{rule.Quotas, rule.ServiceAccounts, rule.Namespace}, workloadNeeds...),
	Doc: "A controller that cannot create its pods (FailedCreate): quota, LimitRange, admission, service account."}, Check: wlCheckFailedCreate}

var rolloutRule = &rule.Rule{Meta: rule.Meta{ID: "workload/rollout", Kinds: []string{"Deployment"}, Layer: rule.WorkloadLayer, Requires: podLevelRules, Needs: workloadNeeds,
	Doc: "A Deployment rollout that does not complete, and which revision introduced the fault."}, Check: wlCheckRollout}

var statefulSetOrdinalsRule = &rule.Rule{Meta: rule.Meta{ID: "workload/statefulset-ordinals", Kinds: []string{"StatefulSet"}, Layer: rule.WorkloadLayer, Requires: podLevelRules, Needs: append([]rule.Need{rule.Claims}, workloadNeeds...),
	Doc: "A StatefulSet whose ordered rollout is blocked by one ordinal."}, Check: wlCheckStatefulSetOrdinals}

var daemonSetCoverageRule = &rule.Rule{Meta: rule.Meta{ID: "workload/daemonset-coverage", Kinds: []string{"DaemonSet"}, Layer: rule.WorkloadLayer, Requires: podLevelRules, Needs: append([]rule.Need{rule.Nodes}, workloadNeeds...),
	Doc: "A DaemonSet missing from nodes it should run on, unavailable, or misscheduled."}, Check: wlCheckDaemonSet}

var jobFailedRule = &rule.Rule{Meta: rule.Meta{ID: "batch/job-failed", Kinds: []string{"Job"}, Layer: rule.WorkloadLayer, Requires: podLevelRules, Needs: workloadNeeds,
	Doc: "A Job that failed: backoff limit, deadline, pod failure policy, and its pods' cause."}, Check: wlCheckJobFailed}

var jobRetryingRule = &rule.Rule{Meta: rule.Meta{ID: "batch/job-retrying", Kinds: []string{"Job"}, Layer: rule.WorkloadLayer, Requires: podLevelRules, Needs: workloadNeeds,
	Doc: "A Job still retrying failed pods before its backoff limit."}, Check: wlCheckJobRetrying}

var cronJobRule = &rule.Rule{Meta: rule.Meta{ID: "batch/cronjob", Kinds: []string{"CronJob"}, Layer: rule.WorkloadLayer, Requires: podLevelRules, Needs: workloadNeeds,
	Doc: "A CronJob whose runs fail, that is suspended, blocked by its concurrency policy or misses its schedule."}, Check: wlCheckCronJob}

var cronJobRunsPileUpRule = &rule.Rule{Meta: rule.Meta{ID: "batch/cronjob-runs-pile-up", Kinds: []string{"CronJob"}, Layer: rule.WorkloadLayer, Requires: podLevelRules, Needs: workloadNeeds,
	Doc: "A CronJob (concurrencyPolicy Allow) whose runs outlast their period and pile up."}, Check: wlCheckCronPileUp}

var replicaSetPodsRule = &rule.Rule{Meta: rule.Meta{ID: "workload/replicaset-pods", Kinds: []string{"ReplicaSet"}, Layer: rule.WorkloadLayer, Requires: podLevelRules, Needs: workloadNeeds,
	Doc: "A ReplicaSet whose pods are not ready, and why."}, Check: wlCheckReplicaSetPods}
