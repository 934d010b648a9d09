package scheduling

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// causeClass is why the scheduler rejects nodes for a pod: the category
// suffix ("Unschedulable/Taint"). An Insufficient cause is refined with
// its resource ("InsufficientCpu", "InsufficientMemory").
type causeClass string

const (
	causeNoNodes                  causeClass = "NoNodes"
	causeMissingPVC               causeClass = "MissingPVC"
	causeUnboundPVC               causeClass = "UnboundPVC"
	causeNodeSelector             causeClass = "NodeSelector"
	causeVolumeNodeAffinity       causeClass = "VolumeNodeAffinity"
	causeTaint                    causeClass = "Taint"
	causePodAffinity              causeClass = "PodAffinity"
	causePodAntiAffinity          causeClass = "PodAntiAffinity"
	causeExistingPodsAntiAffinity causeClass = "ExistingPodsAntiAffinity"
	causeTopologySpread           causeClass = "TopologySpread"
	causeHostPort                 causeClass = "HostPort"
	causeNoPersistentVolume       causeClass = "NoPersistentVolume"
	causeStorageCapacity          causeClass = "StorageCapacity"
	causeVolumeLimit              causeClass = "VolumeLimit"
	causeVolumeZone               causeClass = "VolumeZone"
	causeMissingPV                causeClass = "MissingPV"
	causeDiskConflict             causeClass = "DiskConflict"
	causeReadWriteOncePod         causeClass = "ReadWriteOncePod"
	causeInsufficient             causeClass = "Insufficient"
	causeTooManyPods              causeClass = "TooManyPods"
	causeCordoned                 causeClass = "Cordoned"
	// Set by the explainers, not the table:
	causeNodeAffinity                 causeClass = "NodeAffinity"
	causeInsufficientExtendedResource causeClass = "InsufficientExtendedResource"
	causeOther                        causeClass = "Other"
)

// schedClass is one row of the scheduler-reason table: what a reason means,
// how hard a constraint it is, and how to explain it from the bundle.
type schedClass struct {
	Class causeClass
	re    *regexp.Regexp // named groups, when it has any, are what explain reads
	// Strength breaks ties between reasons that block as many nodes: a
	// deliberate constraint of the pod spec outranks a capacity shortage.
	Strength  int
	Mechanism string
	explain   func(e *schedContext, part schedReason, m submatch.Match) schedCause
	// Why and Fix serve the reasons explained by the table alone.
	Why, Fix string
	// afterNodeAffinity: the reason's filter plugin runs after NodeAffinity
	// in kube-scheduler's default order (pkg/scheduler/apis/config/v1/
	// default_plugins.go: NodeUnschedulable, TaintToleration, NodeAffinity,
	// NodePorts, NodeResourcesFit, NodeVolumeLimits, VolumeBinding,
	// VolumeZone, PodTopologySpread, InterPodAffinity). The framework stops
	// at a node's first failing filter (RunFilterPlugins), so a node
	// reported with it passed the pod's node selector.
	afterNodeAffinity bool
	// capacity: the reason is a node's lack of room (requests, pod count),
	// which a bigger node would lift.
	capacity bool
}

// schedClasses are matched against each part of a scheduler message, in
// order. The wording is kube-scheduler's (plugins noderesources,
// tainttoleration, nodeaffinity, interpodaffinity, podtopologyspread,
// volumebinding, nodeunschedulable, nodeports), old wordings included.
var schedClasses = []schedClass{
	{Class: causeNoNodes, re: regexp.MustCompile(`^no nodes available to schedule pods`), Strength: 110,
		Mechanism: "The scheduler places pods only on registered nodes; with none, every pod stays Pending.",
		explain:   (*schedContext).noNodes},
	{Class: causeMissingPVC, re: regexp.MustCompile(`persistentvolumeclaim "(?P<claim>[^"]+)" not found`), Strength: 100,
		Mechanism: "The VolumeBinding plugin rejects the pod before looking at any node when a claim it mounts does not exist.",
		explain:   (*schedContext).missingPVC},
	{Class: causeUnboundPVC, re: regexp.MustCompile(`unbound immediate PersistentVolumeClaims`), Strength: 95,
		Mechanism: "A claim with volumeBindingMode Immediate must be bound before the pod is scheduled; until the PV controller or the provisioner binds it, no node is considered.",
		explain:   (*schedContext).unboundPVC},
	{Class: causeNodeSelector, re: regexp.MustCompile(`didn't match (?:Pod's node affinity|node selector)|^MatchNodeSelector|^NodeSelectorNotMatch`), Strength: 90,
		Mechanism: "A pod runs only on nodes whose labels satisfy its nodeSelector and every requiredDuringScheduling node affinity term; no label change on the pod side is made automatically.",
		explain:   (*schedContext).nodeAffinity},
	{Class: causeVolumeNodeAffinity, afterNodeAffinity: true, re: regexp.MustCompile(`volume node affinity conflict|didn't match PersistentVolume's node affinity`), Strength: 85,
		Mechanism: "A bound PersistentVolume can only be attached on nodes matching its nodeAffinity (its zone, or the node of a local volume); the pod follows its volume.",
		explain:   (*schedContext).volumeNodeAffinity},
	{Class: causeTaint, re: regexp.MustCompile(`untolerated taint|had taints?\b|^PodToleratesNodeTaints`), Strength: 80,
		Mechanism: "A NoSchedule or NoExecute taint on a node repels every pod that has no matching toleration.",
		explain:   (*schedContext).taint},
	{Class: causePodAffinity, afterNodeAffinity: true, re: regexp.MustCompile(`didn't match pod affinity rules`), Strength: 75,
		Mechanism: "Required pod affinity only admits nodes whose topology domain already runs a pod matching the term's selector.",
		explain:   (*schedContext).podAffinity},
	{Class: causePodAntiAffinity, afterNodeAffinity: true, re: regexp.MustCompile(`didn't match pod anti-affinity rules`), Strength: 74,
		Mechanism: "Required pod anti-affinity excludes every node whose topology domain already runs a pod matching the term's selector.",
		explain:   (*schedContext).podAntiAffinity},
	{Class: causeExistingPodsAntiAffinity, afterNodeAffinity: true, re: regexp.MustCompile(`didn't satisfy existing pods anti-affinity rules`), Strength: 73,
		Mechanism: "Pods already running carry required anti-affinity terms that match this pod's labels: the scheduler keeps this pod out of their topology domains.",
		explain:   (*schedContext).existingAntiAffinity},
	{Class: causePodAffinity, afterNodeAffinity: true, re: regexp.MustCompile(`didn't match pod affinity/anti-affinity`), Strength: 72,
		Mechanism: "Required pod affinity or anti-affinity terms exclude these nodes.",
		explain:   (*schedContext).podAffinity},
	{Class: causeTopologySpread, afterNodeAffinity: true, re: regexp.MustCompile(`didn't match pod topology spread constraints`), Strength: 70,
		Mechanism: "A topology spread constraint with whenUnsatisfiable DoNotSchedule admits only nodes where adding the pod keeps the difference between the most and least loaded domains within maxSkew.",
		explain:   (*schedContext).topologySpread},
	{Class: causeHostPort, afterNodeAffinity: true, re: regexp.MustCompile(`didn't have free ports`), Strength: 65,
		Mechanism: "A hostPort can be bound by one pod per node: nodes where another pod already holds it are excluded.",
		explain:   (*schedContext).hostPort},
	{Class: causeNoPersistentVolume, afterNodeAffinity: true, re: regexp.MustCompile(`didn't find available persistent volumes to bind`), Strength: 64,
		Mechanism: "With volumeBindingMode WaitForFirstConsumer and no provisioner, a claim binds to an existing PV reachable from the chosen node; there is none.",
		Why:       "no available PersistentVolume matches the claim's class, size and access modes on those nodes",
		Fix:       "Create a PersistentVolume that matches the claim (class, size, access modes, node affinity) or give the StorageClass a provisioner."},
	{Class: causeStorageCapacity, afterNodeAffinity: true, re: regexp.MustCompile(`did not have enough free storage`), Strength: 63,
		Mechanism: "The CSI driver publishes storage capacity per topology segment; the scheduler skips nodes whose segment cannot hold the claim.",
		Why:       "the storage reachable from those nodes has less free capacity than the claim requests",
		Fix:       "Free or add capacity in the storage pool, or request a smaller volume."},
	{Class: causeVolumeLimit, afterNodeAffinity: true, re: regexp.MustCompile(`max volume count`), Strength: 62,
		Mechanism: "Each node can attach a bounded number of volumes of a driver (CSINode allocatable count); full nodes are skipped.",
		Why:       "those nodes already have as many volumes attached as their driver allows",
		Fix:       "Spread the volumes over more nodes (more nodes, or node types that attach more volumes)."},
	// VolumeZone, VolumeRestrictions and VolumeBinding wordings
	// (pkg/scheduler/framework/plugins/volumezone, volumerestrictions,
	// volumebinding): told by their table row.
	{Class: causeVolumeZone, afterNodeAffinity: true, re: regexp.MustCompile(`had no available volume zone`), Strength: 63,
		Mechanism: "A zonal PersistentVolume can only be attached in its zone (its topology labels); the pod must run on a node of that zone.",
		Why:       "the volume the pod claims is in a zone none of those nodes is in",
		Fix:       "Run the pod in the volume's zone (add nodes there, or allow that zone in the pod's affinity), or use a StorageClass with volumeBindingMode WaitForFirstConsumer for new claims."},
	{Class: causeMissingPV, afterNodeAffinity: true, re: regexp.MustCompile(`bound to non-existent pv`), Strength: 96,
		Mechanism: "A claim bound to a PersistentVolume that no longer exists cannot be attached anywhere: every node is rejected.",
		Why:       "a claim the pod mounts is bound to a PersistentVolume that does not exist",
		Fix:       "Recreate the PersistentVolume the claim is bound to (same name, the data's volume), or restore the claim from a backup onto a new volume."},
	{Class: causeDiskConflict, afterNodeAffinity: true, re: regexp.MustCompile(`had no available disk`), Strength: 62,
		Mechanism: "Some volume types (GCE PD, AWS EBS, iSCSI, RBD read-write) can be mounted by one pod per node: a node already using the same disk is skipped.",
		Why:       "the same disk is already mounted by another pod on those nodes",
		Fix:       "Stop the other pod using the disk, or give each pod its own volume."},
	{Class: causeReadWriteOncePod, afterNodeAffinity: true, re: regexp.MustCompile(`ReadWriteOncePod access mode already in-use`), Strength: 97,
		Mechanism: "A claim with access mode ReadWriteOncePod can be used by a single pod in the whole cluster: while another pod uses it, no node can run this one.",
		Why:       "the claim's access mode ReadWriteOncePod lets only one pod use it, and another pod already does",
		Fix:       "Let the pod holding the claim finish (a rollout with maxSurge 0 or the Recreate strategy for a Deployment), or give this pod its own claim."},
	{Class: causeInsufficient, afterNodeAffinity: true, capacity: true, re: regexp.MustCompile(`^Insufficient (?P<resource>\S+)`), Strength: 60,
		Mechanism: "The scheduler places a pod only where its requests fit in the node's allocatable minus the requests of the pods already there (actual usage does not count).",
		explain:   (*schedContext).insufficient},
	{Class: causeTooManyPods, afterNodeAffinity: true, capacity: true, re: regexp.MustCompile(`^Too many pods`), Strength: 55,
		Mechanism: "A node accepts at most its allocatable pods (the kubelet's maxPods); a full node is skipped whatever its free cpu and memory.",
		explain:   (*schedContext).tooManyPods},
	{Class: causeCordoned, re: regexp.MustCompile(`were unschedulable`), Strength: 50,
		Mechanism: "A cordoned node (spec.unschedulable=true) accepts no new pod unless the pod tolerates node.kubernetes.io/unschedulable.",
		explain:   (*schedContext).cordoned},
}

const schedMechanism = "The scheduler filtered out every node for the reasons it lists; the pod stays Pending until one node passes every filter."

// schedCause is one part of the scheduler's message, explained.
type schedCause struct {
	Class      causeClass
	Text       string // the part with its node count, and what the bundle adds
	Culprit    string
	Mechanism  string
	Evidence   []string
	Actions    []report.Action
	Notes      []string
	Confidence rule.Confidence
	// Definitive is set when the bundle shows the constraint alone rules
	// out every known node (a selector no node matches, a request larger
	// than every node): it names the culprit whatever the counts say.
	Definitive bool
	// Narrowing is set when the constraint leaves some nodes and the other
	// reasons exclude those: the other reasons are the blockers.
	Narrowing bool
	strength  int
	blocked   int
	capacity  bool // from its row (schedClass.capacity)
}

// schedContext is what the explainers share about one pending pod.
type schedContext struct {
	c           *rule.Pass
	p           *corev1.Pod
	kind, owner string // where fixes go: the workload, or the bare pod
	total       int
	reqs        corev1.ResourceList
	// pastAffinity counts the nodes the scheduler rejected with a filter
	// that runs after NodeAffinity: those nodes matched the pod's
	// nodeSelector and node affinity (see afterNodeAffinity).
	pastAffinity int
	// preemptionTried counts the nodes the message's preemption part
	// does not call "not helpful": preemption looked for victims there.
	preemptionTried int
}

// countPastAffinity sums the nodes of parts reported by filters that run
// after NodeAffinity.
func countPastAffinity(parts []schedReason) int {
	n := 0
	for _, part := range parts {
		for i := range schedClasses {
			if schedClasses[i].re.MatchString(part.Text) {
				if schedClasses[i].afterNodeAffinity {
					n += part.Nodes
				}
				break
			}
		}
	}
	return n
}

// spec names a field of the pod spec where a fix goes: the workload's pod
// template, or the bare pod.
func (e *schedContext) spec(field string) string {
	if e.kind == "pod" {
		return fmt.Sprintf("pod/%s .spec.%s", e.p.Name, field)
	}
	return fmt.Sprintf("%s/%s %s.%s", e.kind, e.owner, podTemplatePath(e.kind), field)
}

func podTemplatePath(kind string) string {
	if kind == "cronjob" {
		return ".spec.jobTemplate.spec.template.spec"
	}
	return ".spec.template.spec"
}

func (e *schedContext) workload() string { return e.kind + "/" + e.owner }

// TemplateRisk is what a change to the owner's pod template does: rollout
// (e.g. "starts a rollout") for a controller that rolls its pods; a bare
// ReplicaSet and a CronJob's run leave their pending pods as they are, and
// a Job is recreated.
func (e *schedContext) templateRisk(rollout string) string {
	return kube.PendingTemplateRisk(e.kind, rollout)
}

// TemplateCommands fits edit, the commands that change the owner's pod
// template in place, to the owner: see TemplateCommands. what says the
// change in words.
func (e *schedContext) templateCommands(edit []string, what string) []string {
	return kube.TemplateCommands(e.kind, e.owner, e.p.Namespace, edit, what, kube.PodRun(e.p))
}

// replacePendingPods adds to each fix of a bare ReplicaSet's template the
// command that makes the ReplicaSet recreate its pending pods from it.
func (e *schedContext) replacePendingPods(actions []report.Action) {
	rs := kube.TargetOf(e.c, "ReplicaSet", e.c.B.ReplicaSets)
	if e.kind != "replicaset" || rs == nil || rs.Spec.Selector == nil {
		return
	}
	cmd := fmt.Sprintf("kubectl delete pods %s -l '%s' --field-selector=status.phase=Pending", kube.NSFlag(e.p), metav1.FormatLabelSelector(rs.Spec.Selector))
	for i := range actions {
		if strings.Contains(actions[i].Risk, kube.ReplicaSetPendingRisk) && !slices.Contains(actions[i].Commands, cmd) {
			actions[i].Commands = append(slices.Clip(actions[i].Commands), cmd)
		}
	}
}

// template is the pod template of the workload that owns the pod, nil for a
// bare pod.
func (e *schedContext) template() *corev1.PodTemplateSpec {
	b := e.c.B
	switch e.kind {
	case "deployment":
		return &b.Deployments[0].Spec.Template
	case "statefulset":
		return &b.StatefulSets[0].Spec.Template
	case "daemonset":
		return &b.DaemonSets[0].Spec.Template
	case "cronjob":
		return &b.CronJobs[0].Spec.JobTemplate.Spec.Template
	case "job":
		return &b.Jobs[0].Spec.Template
	case "replicaset":
		if rs := kube.TargetOf(e.c, "ReplicaSet", b.ReplicaSets); rs != nil {
			return &rs.Spec.Template
		}
	}
	return nil
}

// replicas is how many pods the owning workload wants, 0 when unknown.
func (e *schedContext) replicas() int32 {
	b := e.c.B
	switch {
	case e.kind == "deployment" && b.Deployments[0].Spec.Replicas != nil:
		return *b.Deployments[0].Spec.Replicas
	case e.kind == "statefulset" && b.StatefulSets[0].Spec.Replicas != nil:
		return *b.StatefulSets[0].Spec.Replicas
	case (e.kind == "pod" || e.kind == "replicaset") && len(b.ReplicaSets) > 0 && b.ReplicaSets[0].Spec.Replicas != nil:
		return *b.ReplicaSets[0].Spec.Replicas
	}
	return 0
}

// recreate is the fix for a field of a bare pod that cannot change in place.
func (e *schedContext) recreate(what string) []string {
	return []string{
		fmt.Sprintf("kubectl get pod %s %s -o yaml > %s.yaml   # %s", e.p.Name, kube.NSFlag(e.p), e.p.Name, what),
		fmt.Sprintf("kubectl replace --force -f %s.yaml", e.p.Name),
	}
}
