package pod

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// VolumePermission is the rule pod/volume-permission.
var VolumePermission = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/volume-permission",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop},
		Needs:    append([]rule.Need{rule.Claims}, rule.PodEvidence...),
		Doc:      "A container denied a path at startup, traced to the volumeMount and volume the path lies on and to what decides who may write there: the user it runs as, the pod's fsGroup, and whether the volume type honours fsGroup at all (hostPath, NFS and read-only projections do not).",
	},
	Check: checkVolumePermission,
}

// checkVolumePermission follows the path a permission error names to the
// mount it lies on. The kubelet makes a volume group-writable for the
// pod's fsGroup (for the volume types that support it); without fsGroup a
// fresh volume's root is owned by root, so a process running as another
// user cannot write it. A hostPath keeps the node directory's owner
// whatever fsGroup says, and ConfigMap/Secret/projected volumes are always
// read-only. An error that names no path (Rust's "Permission denied (os
// error 13)") points at the container's writable claim mounts, with less
// confidence.
func checkVolumePermission(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, cr := range crashesOf(c, logs.PermissionDenied) {
		if strings.HasPrefix(logs.SubjectOf(logs.PermissionDenied, cr.dec.Line), "port ") {
			continue // a bind refused: no path, no volume
		}
		paths := deniedPaths(cr.dec.Line)
		mounts, path, sure := permMounts(cr.pod, cr.spec, paths)
		if len(mounts) == 0 {
			continue
		}
		if f := permFinding(c, cr, mounts, path, sure); f != nil {
			out = append(out, *f)
		}
	}
	return out
}

// deniedPaths are the absolute paths of a permission error, the subject
// first (the denied path, not the program's own file a line may start with).
func deniedPaths(line string) []string {
	var out []string
	if s := logs.SubjectOf(logs.PermissionDenied, line); strings.HasPrefix(s, "/") {
		out = append(out, strings.TrimRight(s, "/.:"))
	}
	for _, p := range applog.Extract(line).Paths {
		if strings.HasPrefix(p, "/") {
			out = append(out, strings.TrimRight(p, "/.:"))
		}
	}
	return out
}

// permMounts is the mount covering one of the paths (the longest
// mountPath), or, when the error names no path, the container's writable
// claim and hostPath mounts; sure is false for that guess.
func permMounts(p *corev1.Pod, spec *corev1.Container, paths []string) ([]*corev1.VolumeMount, string, bool) {
	if m, path, sure := mountFor(p, spec, paths); m != nil && sure {
		return []*corev1.VolumeMount{m}, path, true
	}
	if len(paths) > 0 {
		return nil, "", false // the image's own filesystem: no volume to trace
	}
	var out []*corev1.VolumeMount
	for i := range spec.VolumeMounts {
		m := &spec.VolumeMounts[i]
		if v := volumeNamed(p, m.Name); v != nil && !m.ReadOnly && (claimOf(p, v) != "" || v.HostPath != nil) {
			out = append(out, m)
		}
	}
	return out, "", false
}

// volumeOwnership is what decides who may write a volume of this type.
type volumeOwnership int

const (
	ownedByFSGroup volumeOwnership = iota // the kubelet (or the CSI driver) applies fsGroup
	ownedByHost                           // hostPath: the node directory's owner
	ownedByServer                         // NFS and the like: the server's export
	readOnlyVolume                        // ConfigMap, Secret, projected, downwardAPI
)

func ownershipOf(v *corev1.Volume) (volumeOwnership, string) {
	switch {
	case v.HostPath != nil:
		return ownedByHost, "hostPath " + v.HostPath.Path
	case v.NFS != nil:
		return ownedByServer, fmt.Sprintf("NFS %s:%s", v.NFS.Server, v.NFS.Path)
	case v.ConfigMap != nil:
		return readOnlyVolume, "ConfigMap " + v.ConfigMap.Name
	case v.Secret != nil:
		return readOnlyVolume, "Secret " + v.Secret.SecretName
	case v.Projected != nil:
		return readOnlyVolume, "projected volume"
	case v.DownwardAPI != nil:
		return readOnlyVolume, "downwardAPI volume"
	case v.EmptyDir != nil:
		return ownedByFSGroup, "emptyDir"
	}
	return ownedByFSGroup, "volume"
}

// identity is the user, group and fsGroup the container runs with, as the
// spec sets them ("" when it leaves them to the image).
type identity struct{ user, group, fsGroup string }

func identityOf(p *corev1.Pod, spec *corev1.Container) identity {
	var id identity
	num := func(v *int64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatInt(*v, 10)
	}
	if psc := p.Spec.SecurityContext; psc != nil {
		id.user, id.group, id.fsGroup = num(psc.RunAsUser), num(psc.RunAsGroup), num(psc.FSGroup)
	}
	if sc := spec.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			id.user = num(sc.RunAsUser)
		}
		if sc.RunAsGroup != nil {
			id.group = num(sc.RunAsGroup)
		}
	}
	return id
}

func (id identity) describe() string {
	user := "the image's own user (runAsUser not set)"
	if id.user != "" {
		user = "runAsUser " + id.user
	}
	fs := "no fsGroup"
	if id.fsGroup != "" {
		fs = "fsGroup " + id.fsGroup
	}
	return user + ", " + fs
}

// gid is the group the fix gives the volume: runAsGroup, else the user's
// id (images that create their user give it a group of the same number).
func (id identity) gid() string {
	switch {
	case id.group != "":
		return id.group
	case id.user != "" && id.user != "0":
		return id.user
	}
	return "<the image user's gid>"
}

func permFinding(c *rule.Pass, cr crashOf, mounts []*corev1.VolumeMount, path string, sure bool) *rule.Finding {
	p, spec, crash := cr.pod, cr.spec, cr.finding
	id := identityOf(p, spec)
	f := crash
	f.Strength, f.Current, f.Confidence = rule.Traced, true, rule.Strong
	if !sure {
		f.Confidence = rule.Likely
	}
	var (
		where  []string
		owners []volumeOwnership
		kinds  []string
	)
	for _, m := range mounts {
		v := volumeNamed(p, m.Name)
		if v == nil {
			return nil
		}
		own, kind := ownershipOf(v)
		if claim := claimOf(p, v); claim != "" {
			kind = "PVC " + claim
			// The claim's PersistentVolume decides: a hostPath or NFS PV
			// ignores fsGroup as the inline volume would.
			switch pv := pvOfClaim(c, p.Namespace, claim); {
			case pv == nil:
			case pv.Spec.CSI != nil:
				kind += " (CSI driver " + pv.Spec.CSI.Driver + ")"
			case pv.Spec.HostPath != nil:
				own, kind = ownedByHost, fmt.Sprintf("PVC %s (PersistentVolume %s, hostPath %s)", claim, pv.Name, pv.Spec.HostPath.Path)
			case pv.Spec.NFS != nil:
				own, kind = ownedByServer, fmt.Sprintf("PVC %s (PersistentVolume %s, NFS %s:%s)", claim, pv.Name, pv.Spec.NFS.Server, pv.Spec.NFS.Path)
			}
		}
		if m.ReadOnly {
			own = readOnlyVolume
		}
		owners, kinds = append(owners, own), append(kinds, kind)
		where = append(where, fmt.Sprintf("%s at %s (volume %s)", kind, m.MountPath, m.Name))
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s mounts %s at %s%s", spec.Name, kind, m.MountPath, subPathText(m)),
			fmt.Sprintf("%s .spec.containers[%s].volumeMounts, .spec.volumes[%s]", kube.PodRef(p), spec.Name, v.Name), containerSpecCmd(p, spec.Name, "volumeMounts")))
	}
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod %s runs container %s with %s", p.Name, spec.Name, id.describe()),
		kube.PodRef(p)+" .spec.securityContext", fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.securityContext}'", p.Name, kube.NSFlag(p))))
	on := where[0]
	if len(where) > 1 {
		on = "one of " + strings.Join(where, ", ")
	}
	denied := path
	if denied == "" {
		denied = "a path it does not name"
	}
	m, own := mounts[0], owners[0]
	var fix report.Action
	switch {
	case own == readOnlyVolume:
		f.Category = crash.Category.Sub("ReadOnlyVolume")
		f.Hypothesis = fmt.Sprintf("The process writes to %s, which is on %s: that volume is read-only", denied, on)
		fix = report.Action{Kind: report.Immediate, Description: fmt.Sprintf("Write to a writable volume instead (an emptyDir mounted elsewhere, with the file copied there at startup), or drop readOnly from mount %s if it must be writable: a ConfigMap, Secret or projected volume is always mounted read-only.", m.Name),
			Commands: []string{containerSpecCmd(p, spec.Name, "volumeMounts")}}
	case own == ownedByHost:
		f.Category = crash.Category.Sub("HostPath")
		f.Hypothesis = fmt.Sprintf("The process (%s) is denied %s on %s: the kubelet does not apply fsGroup to a hostPath volume, so the node directory's owner decides", id.describe(), denied, on)
		fix = report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Make the node directory of hostPath volume %s writable for the container's user (chown %s:%s on the node, or an init container running as root that does it), or store the data on a PersistentVolumeClaim, whose ownership fsGroup sets.", m.Name, orImageUser(id.user), id.gid()),
			Commands:    []string{fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.nodeName}{\"\\n\"}{.spec.volumes[?(@.name==\"%s\")].hostPath}'", p.Name, kube.NSFlag(p), m.Name)},
			Risk:        "the directory is on one node: a pod scheduled to another node finds another (or an empty) directory"}
	case own == ownedByServer:
		f.Category = crash.Category.Sub("VolumeOwner")
		f.Hypothesis = fmt.Sprintf("The process (%s) is denied %s on %s: fsGroup does not change the ownership of an NFS export; the server's owner and squash settings decide", id.describe(), denied, on)
		fix = report.Action{Kind: report.Check, Description: fmt.Sprintf("Make the export writable for uid %s (owner, or all_squash/anonuid on the server), or run the container as the export's owner.", orImageUser(id.user))}
	case id.fsGroup == "":
		f.Category = crash.Category.Sub("FSGroup")
		f.Hypothesis = fmt.Sprintf("The process (%s) is denied %s on %s: without fsGroup the volume's root stays owned by root, so a non-root process cannot write it", id.describe(), denied, on)
		gid := id.gid()
		sc := map[string]any{"fsGroup": gid, "fsGroupChangePolicy": "OnRootMismatch"}
		if n, err := strconv.ParseInt(gid, 10, 64); err == nil {
			sc["fsGroup"] = n
		}
		fix = PodSpecPatch(c, p, map[string]any{"securityContext": sc},
			fmt.Sprintf("Set the pod's securityContext.fsGroup to the group the process runs as (%s), so the kubelet makes the volume group-writable for it at mount time; an init container that chowns %s is the alternative for a driver that ignores fsGroup.", gid, m.MountPath), "")
	default:
		f.Category = crash.Category.Sub("VolumeOwner")
		f.Hypothesis = fmt.Sprintf("The process (%s) is denied %s on %s although fsGroup is set: the volume's driver does not apply fsGroup (CSIDriver fsGroupPolicy None, or File only for ReadWriteOnce), or the files were created by another user without group write", id.describe(), denied, on)
		fix = report.Action{Kind: report.Check, Description: fmt.Sprintf("See who owns %s and whether the CSI driver applies fsGroup (its fsGroupPolicy); if not, chown the directory once with an init container running as root, or run the container as the owner.", m.MountPath),
			Commands: []string{"kubectl get csidriver -o custom-columns=NAME:.metadata.name,FSGROUPPOLICY:.spec.fsGroupPolicy"}}
	}
	where0 := fmt.Sprintf("%s container %s", kube.PodRef(p), spec.Name)
	if sure {
		f.Title = fmt.Sprintf("container %s is denied %s on %s, as %s", spec.Name, path, where[0], id.describe())
		f.Culprit = fmt.Sprintf("%s: %s is on %s, mounted at %s, written as %s", where0, path, kinds[0], m.MountPath, id.describe())
	} else {
		f.Title = fmt.Sprintf("container %s is denied a path it does not name; its writable volumes: %s, as %s", spec.Name, strings.Join(where, ", "), id.describe())
		f.Culprit = fmt.Sprintf("%s: %q names no absolute path; its writable volumes are %s, written as %s", where0, cr.dec.Line, strings.Join(where, ", "), id.describe())
	}
	f.Summary = fmt.Sprintf("%s. %s", upperFirst(f.Title), crash.Summary)
	f.Actions = append([]report.Action{fix}, crash.Actions...)
	return &f
}

func orImageUser(uid string) string {
	if uid == "" {
		return "<the image's uid>"
	}
	return uid
}

// pvOfClaim is the collected PersistentVolume bound to claim, or nil.
func pvOfClaim(c *rule.Pass, ns, claim string) *corev1.PersistentVolume {
	for _, pvc := range c.B.PVCs {
		if pvc.Namespace != ns || pvc.Name != claim {
			continue
		}
		for _, pv := range c.B.PVs {
			if pv.Name == pvc.Spec.VolumeName {
				return pv
			}
		}
	}
	return nil
}
