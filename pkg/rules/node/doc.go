// Package node holds the rules about nodes (layer infrastructure): a Node
// target that is not ready, under pressure, without network or cordoned,
// and a pod whose node is its cause. One file per rule.
package node
