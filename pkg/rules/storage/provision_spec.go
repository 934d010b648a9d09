package storage

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// accessModeRefusal is a provisioner's error that refuses the access mode
// the claim asks for: the claim's spec, not the driver's health, is what
// to change (docs/DESIGN.md, "Provisioning errors tied to the claim's
// spec").
type accessModeRefusal struct {
	Mode      corev1.PersistentVolumeAccessMode   // the claim's mode the driver refused
	Supported []corev1.PersistentVolumeAccessMode // when the error lists them
}

// csiAccessModes maps the CSI spec's access modes to the Kubernetes ones
// the external-provisioner translates them from
// (kubernetes-csi/external-provisioner pkg/controller, getAccessMode).
var csiAccessModes = map[string]corev1.PersistentVolumeAccessMode{
	"MULTI_NODE_MULTI_WRITER":   corev1.ReadWriteMany,
	"MULTI_NODE_READER_ONLY":    corev1.ReadOnlyMany,
	"MULTI_NODE_SINGLE_WRITER":  corev1.ReadWriteMany,
	"SINGLE_NODE_SINGLE_WRITER": corev1.ReadWriteOncePod,
	"SINGLE_NODE_MULTI_WRITER":  corev1.ReadWriteOnce,
	"SINGLE_NODE_WRITER":        corev1.ReadWriteOnce,
}

var (
	// The external-provisioner sends one VolumeCapability per access mode
	// of the claim, in its order: the index is into spec.accessModes.
	capabilityIndexRe = regexp.MustCompile(`capabilit(?:y|ies) at index (?P<index>\d+) (?:is|are) not supported`)
	csiModeRe         = regexp.MustCompile(`\b(?P<mode>(?:MULTI|SINGLE)_NODE_(?:MULTI_WRITER|READER_ONLY|SINGLE_WRITER|WRITER))\b`)
	// The in-tree provisioners' wording (pkg/volume/util): invalid
	// AccessModes [ReadOnlyMany]: only AccessModes [ReadWriteOnce ReadWriteMany] are supported.
	inTreeModesRe = regexp.MustCompile(`invalid AccessModes \[(?P<asked>[^\]]*)\]: only AccessModes \[(?P<supported>[^\]]*)\] are supported`)
	accessModeRe  = regexp.MustCompile(`(?i)access[ _-]?modes?|volume capabilit`)
	refusedRe     = regexp.MustCompile(`(?i)not supported|unsupported|invalid|only supports?`)
)

// refusedAccessMode reads a provisioning error for a refused access mode
// and names the claim's mode it refers to.
func refusedAccessMode(msg string, pvc *corev1.PersistentVolumeClaim) (accessModeRefusal, bool) {
	modes := pvc.Spec.AccessModes
	if m, ok := submatch.Find(inTreeModesRe, msg); ok {
		r := accessModeRefusal{}
		for _, s := range strings.Fields(m.Get("supported")) {
			r.Supported = append(r.Supported, corev1.PersistentVolumeAccessMode(s))
		}
		for _, s := range strings.Fields(m.Get("asked")) {
			if mode := corev1.PersistentVolumeAccessMode(s); !slices.Contains(r.Supported, mode) {
				r.Mode = mode
				return r, true
			}
		}
	}
	if m, ok := submatch.Find(capabilityIndexRe, msg); ok {
		if i, err := strconv.Atoi(m.Get("index")); err == nil && i < len(modes) {
			return accessModeRefusal{Mode: modes[i]}, true
		}
	}
	if !refusedRe.MatchString(msg) {
		return accessModeRefusal{}, false
	}
	if m, ok := submatch.Find(csiModeRe, msg); ok {
		if mode, known := csiAccessModes[m.Get("mode")]; known {
			return accessModeRefusal{Mode: mode}, true
		}
	}
	if accessModeRe.MatchString(msg) {
		// The error names no mode: the claim's one that few drivers offer.
		for _, mode := range modes {
			if mode != corev1.ReadWriteOnce {
				return accessModeRefusal{Mode: mode}, true
			}
		}
	}
	return accessModeRefusal{}, false
}

// accessModeActions: a claim's accessModes cannot change, so the claim is
// recreated with a mode the class offers, or with a class whose driver
// offers the mode.
func accessModeActions(pvc *corev1.PersistentVolumeClaim, r accessModeRefusal, className string) []report.Action {
	to := "ReadWriteOnce"
	if len(r.Supported) > 0 {
		to = string(r.Supported[0])
	}
	return []report.Action{
		{Kind: report.Immediate,
			Description: fmt.Sprintf("A claim's accessModes cannot be changed: recreate it with %s if one node at a time is enough (pods on the same node can share a ReadWriteOnce volume), or with a StorageClass whose driver offers %s (a file system such as NFS, CephFS, EFS, Azure Files).", to, r.Mode),
			Commands: []string{
				fmt.Sprintf("kubectl get pvc %s %s -o yaml > %s.yaml   # set spec.accessModes, or spec.storageClassName", pvc.Name, pvcNS(pvc), pvc.Name),
				fmt.Sprintf("kubectl replace --force -f %s.yaml", pvc.Name),
				storageClassesCommand,
			},
			Risk: "replace --force deletes and recreates the claim; pods using it must be restarted to pick it up"},
		{Kind: report.Check, Description: fmt.Sprintf("Check which access modes the driver of StorageClass %s supports (its documentation; a CSIDriver object does not list them).", className),
			Commands: []string{fmt.Sprintf("kubectl get storageclass %s -o yaml", className)}},
	}
}

func accessModesText(modes []corev1.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range modes {
		out = append(out, string(m))
	}
	return "[" + strings.Join(out, ", ") + "]"
}
