package investigate

import (
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/autoscaling"
	gone "github.com/kubectl-triage/kubectl-triage/pkg/rules/gone"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/network"
	noderules "github.com/kubectl-triage/kubectl-triage/pkg/rules/node"
	podrules "github.com/kubectl-triage/kubectl-triage/pkg/rules/pod"
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

var containerRules = []*rule.Rule{podrules.OOMKilled, podrules.CrashLoop, podrules.ImagePull}

var containerMoreRules = []*rule.Rule{
	podrules.Probe,
	podrules.ConfigError,
	podrules.RuntimeError,
	podrules.ConfigSource,
	podrules.NotOOMKilled,
	podrules.Evicted,
	podrules.StuckTerminating,
}

var initRules = []*rule.Rule{podrules.InitRunning}

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
