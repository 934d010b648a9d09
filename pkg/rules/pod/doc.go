// Package pod holds the rules about a pod's own containers and lifecycle
// (layer pod): the kernel's OOM kill, crash loops and their decisive log
// line, image pulls, probes, configuration and runtime errors and where a
// missing setting comes from, evictions, pods stuck terminating and init
// containers that wait forever. One file per rule.
package pod
