// Package rule is the contract between the builtin investigator and its
// rules, in the manner of go/analysis: a rule declares what it is (Meta) and
// checks one bundle (Check); the engine runs each rule once per bundle and
// ranks what they found.
//
// # A rule
//
//	var OOMKilled = &rule.Rule{Meta: rule.Meta{
//		ID:    "pod/oomkilled",   // area/name: stable, unique, the last tie-break
//		Kinds: nil,               // target kinds it applies to (nil: any kind)
//		Layer: rule.PodLayer,     // where in the stack the causes it finds live
//		Needs: rule.PodEvidence,  // the evidence it reads: pods, events, logs
//		Doc:   "A container the kernel killed for exceeding its memory limit (reason OOMKilled).",
//	}, Check: checkOOMKilled}    // func(*rule.Pass) []rule.Finding
//
// The rules live in packages by area under pkg/rules, one file per rule
// with its test and testdata beside it (package ruletest runs one rule over
// a captured workspace; the area's *_report_test.go cases check the whole
// report with package investigatetest); pkg/rules/registry lists them in
// report order. The
// engine (pkg/investigate) runs a rule only for a target of one of its
// Kinds.
//
// Check reads the bundle through the Pass (Pass.B, Pass.Now), registers each
// fact it cites with Pass.Evidence (the same fact from the same source is one
// piece of evidence) and returns findings. It must not mutate the bundle.
//
// Requires lists the rules whose findings a rule reads; it reads them with
// Pass.ResultOf, which runs each rule at most once per bundle and hands every
// reader the same findings (no rule re-runs the catalogue). A rule outside
// the catalogue being run contributes no findings. Reading a rule that is not
// in Requires is a programming error and panics.
//
// Needs lists the evidence kinds (bundle fields) the rule reads. Plan
// derives the collection plan for a target from the Needs of the rules whose
// Kinds include the target's kind and of the rules they require; the
// collector fetches nothing else beyond the target, its owners, its pods and
// its namespace, and still fetches in parallel and bounded.
//
// # Findings: category and confidence
//
// A finding's Category is the root-cause class the report and the scenario
// tables check: a root (one of the Category constants, the closed list of
// areas) refined with Sub ("CrashLoop" → "CrashLoop/Exit1/MissingEnv").
// Confidence is one of the named bands (Certain … Negligible), so that two
// rules that mean "decisive evidence" say so with the same number.
//
// # Ranking: which finding is the root cause
//
// Only validated findings compete. They are ordered by, in turn:
//
//  1. Current: a finding about the present beats history (an old event, a
//     past restart).
//  2. Context: a context finding (the rollout, Job or workload around a
//     pod's own cause, which it read through Requires) never outranks that
//     cause; its facts are added to the root cause instead.
//  3. Strength of the finding's own evidence: Traced (it names the cause
//     behind what another rule explains: the ConfigMap key behind a crash
//     loop's missing variable, the unbound claim behind a pod the scheduler
//     refuses, the NotReady node under a pod) > Explained (its
//     evidence names the cause: a decisive log line, the kubelet's or the
//     scheduler's own reason) > Observed (a fault is seen but its cause is
//     not named: a crash loop with an unexplained exit code) > Symptom (it
//     restates a fault that another rule explains: the crash loop the
//     kubelet caused by killing a container for its probe, a Service with
//     no endpoints because its pods fail).
//  4. Layer of the rule: a cause lower in the stack explains the faults
//     above it, so at equal strength the lower layer wins:
//     Infrastructure > Placement > Pod > Workload > Service.
//  5. Confidence, higher first.
//  6. Rule ID, then the order the rule reported its findings: ties break
//     deterministically, never by map or catalogue order.
//
// # Layers
//
//   - Infrastructure: what pods run on and cannot fix themselves — nodes
//     (Ready, pressure, network, cordon, shutdown), the kubelet and
//     runtime under a pod, volume provisioning, attach and mount.
//   - Placement: whether and where a pod can be placed — the scheduler's
//     verdict (resources, affinity, taints, topology, host ports) and the
//     claims a pod needs bound before it can be placed.
//   - Pod: the pod's own spec and containers — images, command, config
//     and its sources (ConfigMaps, Secrets), probes, memory, init
//     containers, eviction and termination of this pod.
//   - Workload: the controllers that own pods and the objects that act on
//     them — Deployment rollouts, ReplicaSets, StatefulSets, DaemonSets,
//     Jobs, CronJobs, autoscalers, and the target itself being gone.
//   - Service: how traffic reaches the pods — Services, EndpointSlices,
//     Ingresses and their classes, network policy.
package rule
