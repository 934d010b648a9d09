// Package scheduling holds the rule about a pod the scheduler cannot place
// (layer placement), split by what the scheduler refused: resources,
// taints, node and pod affinity, topology spread, host ports, volumes,
// scheduling gates and a missing scheduler.
package scheduling
