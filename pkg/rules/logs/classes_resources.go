package logs

import (
	"fmt"
	"regexp"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// The process runs out of something the node or the volume gives it:
// space, memory, the kernel limits a program checks at startup.
const (
	NoSpace        Class = "NoSpace"
	OutOfMemory    Class = "OutOfMemory"
	BootstrapCheck Class = "BootstrapCheck"
)

var _ = register(Def{
	Class: NoSpace,
	Patterns: []Pattern{{
		Explains: "the volume or filesystem the application writes to is full",
		Fix:      "Free space or grow the volume (a PVC's storage request, if its StorageClass allows expansion); for an emptyDir, raise its sizeLimit or the node's ephemeral storage.", Priority: 87}},
	Signals: []applog.Signal{applog.SigNoSpace},
	Subject: lastPathMatch,
})

var _ = register(Def{
	Class: OutOfMemory,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)(java\.lang\.OutOfMemoryError|fatal error: runtime: out of memory|JavaScript heap out of memory|Cannot allocate memory|MemoryError)`),
		Explains: "the process ran out of memory inside its own runtime",
		Fix:      "Raise the memory limit or lower the runtime's heap size (e.g. -Xmx, --max-old-space-size) to fit within the container limit.", Priority: 70}},
	Signals: []applog.Signal{applog.SigOOM},
})

// org.elasticsearch.bootstrap.BootstrapChecks: "bootstrap check failure
// [1] of [1]: max virtual memory areas vm.max_map_count [65530] is too low,
// increase to at least [262144]" (7.x: "[1]: max virtual …"); the process
// then exits 78 (ExitCodes.CONFIG, sysexits' EX_CONFIG). The program says
// exactly what it refuses, so its rows rank above the generic classes.
var _ = register(Def{
	Class: BootstrapCheck,
	Patterns: []Pattern{
		{re: regexp.MustCompile(`max virtual memory areas vm\.max_map_count \[\d+\] is too low`),
			Explains: "Elasticsearch (or OpenSearch) refuses to start: its bootstrap check finds the node's vm.max_map_count kernel setting too low (it memory-maps its index files)",
			Fix:      "Raise vm.max_map_count to at least 262144 on the nodes that run Elasticsearch: `sysctl -w vm.max_map_count=262144` (persisted in /etc/sysctl.d/), a DaemonSet that sets it, or a privileged init container in the pod running `sysctl -w vm.max_map_count=262144`. With ECK, node.store.allow_mmap: false avoids the check at some performance cost. vm.max_map_count is not a namespaced sysctl, so the pod's securityContext.sysctls cannot set it.", Priority: 97},
		{re: regexp.MustCompile(`max file descriptors \[\d+\] for (elasticsearch|opensearch) process is too low`),
			Explains: "Elasticsearch refuses to start: its bootstrap check finds the open-file limit (ulimit -n) of the process too low",
			Fix:      "Raise the container runtime's nofile limit for the process to at least 65535 (containerd/docker default ulimits on the node, or LimitNOFILE of the runtime's systemd unit).", Priority: 97},
		{re: regexp.MustCompile(`memory locking requested for (elasticsearch|opensearch) process but memory is not locked`),
			Explains: "Elasticsearch refuses to start: bootstrap.memory_lock is true but the process may not lock its memory (memlock limit)",
			Fix:      "Set bootstrap.memory_lock: false, or raise the memlock ulimit of the container runtime on the node to unlimited.", Priority: 97},
		{re: regexp.MustCompile(`the default discovery settings are unsuitable for production use`),
			Explains: "Elasticsearch refuses to start: none of discovery.seed_hosts, discovery.seed_providers and cluster.initial_master_nodes is set",
			Fix:      "Set discovery.type=single-node for a one-node cluster, or discovery.seed_hosts and cluster.initial_master_nodes (the StatefulSet's pod names) for a multi-node one.", Priority: 97},
		{re: regexp.MustCompile(`max number of threads \[\d+\] for user \[\S+\] is too low`),
			Explains: "Elasticsearch refuses to start: its bootstrap check finds the process's thread limit (ulimit -u) too low",
			Fix:      "Raise the nproc limit of the container runtime on the node to at least 4096.", Priority: 97},
	},
	Subject: func(line string) string {
		if m, ok := submatch.Find(esMapCountRe, line); ok {
			return fmt.Sprintf("vm.max_map_count %s, at least %s required", m.Get("have"), m.Get("want"))
		}
		if m, ok := submatch.Find(esLimitRe, line); ok {
			return fmt.Sprintf("%s %s, at least %s required", m.Get("limit"), m.Get("have"), m.Get("want"))
		}
		return ""
	},
})

var (
	esMapCountRe = regexp.MustCompile(`vm\.max_map_count \[(?P<have>\d+)\] is too low, increase to at least \[(?P<want>\d+)\]`)
	esLimitRe    = regexp.MustCompile(`(?P<limit>max file descriptors|max number of threads) \[(?P<have>\d+)\].*increase to at least \[(?P<want>\d+)\]`)
)
