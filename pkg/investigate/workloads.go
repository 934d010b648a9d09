package investigate

// Workload rules: Deployment rollouts, ReplicaSet/StatefulSet/DaemonSet creation failures, StatefulSet ordinals, DaemonSet coverage, Jobs and CronJobs.
var workloadRules = []Rule{}
