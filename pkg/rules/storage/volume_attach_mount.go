package storage

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// VolumeAttachMount is the rule storage/volume-attach-mount.
var VolumeAttachMount = &rule.Rule{
	Meta: rule.Meta{
		ID:    "storage/volume-attach-mount",
		Layer: rule.InfrastructureLayer,
		Needs: []rule.Need{rule.Claims, rule.Pods, rule.Events},
		Doc:   "A volume the kubelet or attach controller cannot attach or mount for a pod.",
	},
	Check: checkVolumeEvents,
}

// volumeClass is why a volume cannot be attached or mounted: the category
// suffix ("Volume/Mount/NFS").
type volumeClass string

const (
	volAttachMultiAttach     volumeClass = "Attach/MultiAttach"
	volAttachFailed          volumeClass = "Attach/Failed"
	volMountConfigMapMissing volumeClass = "Mount/ConfigMapMissing"
	volMountSecretMissing    volumeClass = "Mount/SecretMissing"
	volMountKeyMissing       volumeClass = "Mount/KeyMissing"
	volMountNFS              volumeClass = "Mount/NFS"
	volMountHelperMissing    volumeClass = "Mount/HelperMissing"
	volMountHostPath         volumeClass = "Mount/HostPath"
	volMountFilesystem       volumeClass = "Mount/Filesystem"
	volMountDevice           volumeClass = "Mount/Device"
	volMountSetUpFailed      volumeClass = "Mount/SetUpFailed"
	volClaimMissing          volumeClass = "ClaimMissing"
	volMountTimeout          volumeClass = "Mount/Timeout"
)

// volumeFailure is one row of the attach/mount failure table.
type volumeFailure struct {
	Class    volumeClass
	Reasons  []string
	re       *regexp.Regexp // named groups: vol (volume), detail
	Title    string         // %[1]s volume (with its source), %[2]s detail
	Mech     string
	Fix      string
	Conf     rule.Confidence
	Strength rule.Strength
}

// volumeFailures are matched against the pod's FailedAttachVolume,
// FailedMount and FailedScheduling events (kubelet, attach-detach
// controller, scheduler wording), most specific first.
var volumeFailures = []volumeFailure{
	{volAttachMultiAttach, []string{"FailedAttachVolume"},
		regexp.MustCompile(`Multi-Attach error for volume "(?P<vol>[^"]+)"\s*(?P<detail>Volume is already (?:exclusively attached to one node and can't be attached to another|used by pod\(s\) [^\n]+))`),
		"volume %[1]s is still attached to another node (Multi-Attach): %[2]s",
		"A ReadWriteOnce volume attaches to one node at a time; the attach-detach controller will not attach it to this pod's node while another node (usually an old pod of the same workload, or a node that died) still holds it.",
		"Make sure the pod that holds the volume on the other node is gone (or the dead node's VolumeAttachment is cleaned up); for RWO volumes use strategy Recreate or a StatefulSet so two pods never want it at once.", rule.Strong, rule.Explained},
	{volAttachFailed, []string{"FailedAttachVolume"},
		regexp.MustCompile(`AttachVolume\.Attach failed for volume "(?P<vol>[^"]+)"\s*:\s*(?P<detail>[^\n]+)`),
		"volume %[1]s cannot be attached to the node: %[2]s",
		"The attach-detach controller asks the volume driver to attach the disk to the pod's node; the driver refused or failed.",
		"Fix what the driver's error names (the disk's zone vs the node's, attach limits per node, driver health, cloud permissions).", rule.Likely, rule.Explained},
	{volMountConfigMapMissing, []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*configmap "(?P<detail>[^"]+)" not found`),
		"volume %[1]s cannot mount: ConfigMap %[2]s does not exist",
		"The kubelet builds a configMap volume from the ConfigMap's keys before starting any container; while the ConfigMap does not exist, the pod stays in ContainerCreating.",
		"Create the ConfigMap in the pod's namespace, fix the name in the pod template, or mark the volume optional: true if the pod can run without it.", rule.Definitive, rule.Explained},
	{volMountSecretMissing, []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*secret "(?P<detail>[^"]+)" not found`),
		"volume %[1]s cannot mount: Secret %[2]s does not exist",
		"The kubelet builds a secret volume from the Secret's keys before starting any container; while the Secret does not exist, the pod stays in ContainerCreating.",
		"Create the Secret in the pod's namespace, fix the name in the pod template, or mark the volume optional: true if the pod can run without it.", rule.Definitive, rule.Explained},
	{volMountKeyMissing, []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*(?P<detail>(?:configmap|secret) references non-existent (?:config|secret) key: \S+)`),
		"volume %[1]s cannot mount: %[2]s",
		"The volume's items list a key the ConfigMap/Secret does not have; the kubelet refuses to build the volume.",
		"Add the key to the ConfigMap/Secret, or fix the key in the volume's items.", rule.Definitive, rule.Explained},
	// Before NFS: mount(8) itself says it has no helper for the type
	// (util-linux' "bad option; for several filesystems (e.g. nfs, cifs)
	// you might need a /sbin/mount.<type> helper program"): the node lacks
	// the client, the server was never asked.
	{volMountHelperMissing, []string{"FailedMount"},
		regexp.MustCompile(`(?s)MountVolume\.(?:SetUp|MountDevice) failed for volume "(?P<vol>[^"]+)"\s*:.*?(?P<detail>bad option; for several filesystems \(e\.g\. nfs, cifs\) you might need a /sbin/mount\.<type> helper program)`),
		"volume %[1]s cannot mount: the node has no mount helper for its filesystem, so mount.nfs (or mount.cifs) is missing there: %[2]s",
		"The kubelet runs mount on the node itself; for nfs and cifs mount(8) calls a helper program, /sbin/mount.nfs or /sbin/mount.cifs, which the node's NFS or CIFS client package installs. Without it mount answers \"bad option\" before any server is contacted.",
		"Install the NFS client on every node that may run the pod (Debian/Ubuntu: nfs-common; RHEL/Fedora/Amazon Linux: nfs-utils; for CIFS: cifs-utils), or bake it into the node image; the kubelet retries the mount by itself.", rule.Strong, rule.Explained},
	{volMountNFS, []string{"FailedMount"},
		regexp.MustCompile(`(?s)MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*mount failed:.*?(?P<detail>mount(?:\.nfs4?)?: [^\n]+)`),
		"volume %[1]s cannot mount: the NFS mount fails: %[2]s",
		"The kubelet runs mount -t nfs on the node; the NFS server did not answer (timeout, no route), refused the export, or the path does not exist.",
		"Check from the node that the NFS server is reachable (TCP 2049, firewall, security groups), exports the path to the node's address, and that the node has NFS client utilities.", rule.High, rule.Explained},
	{volMountHostPath, []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*(?P<detail>hostPath type check failed: [^\n]+)`),
		"volume %[1]s cannot mount: %[2]s",
		"A hostPath volume with a type (Directory, File, Socket…) is checked on the node; the path is missing or of another type.",
		"Create the path on the node(s), fix the path, or use type DirectoryOrCreate.", rule.Strong, rule.Explained},
	// Before Mount/Device: the mount's own output, on a later line of the
	// event, says the device's filesystem is not the one asked for.
	{volMountFilesystem, []string{"FailedMount"},
		regexp.MustCompile(`(?s)MountVolume\.(?:MountDevice|SetUp) failed for volume "(?P<vol>[^"]+)"\s*:.*?(?P<detail>wrong fs type, bad option, bad superblock on [^,\s]+)`),
		"volume %[1]s cannot be mounted on the node: the disk's filesystem does not match its fsType or is damaged (%[2]s)",
		"The kubelet (or the CSI driver) mounts the attached disk with the fsType of the volume; mount refuses it: the disk holds another filesystem than fsType says (a disk formatted ext4 mounted as xfs, a snapshot restored from another filesystem), its filesystem is corrupted, or the node lacks that filesystem's tools.",
		"Check the disk's real filesystem from the node (blkid/lsblk -f on the device) and set the PV's or StorageClass's fsType to it, or repair it (xfs_repair / fsck) while it is not mounted.", rule.High, rule.Explained},
	{volMountDevice, []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.MountDevice failed for volume "(?P<vol>[^"]+)"\s*:\s*(?P<detail>[^\n]+)`),
		"volume %[1]s cannot be mounted on the node: %[2]s",
		"The kubelet stages the attached device on the node (format, mount) before mounting it into the pod; the volume driver failed that step.",
		"Fix what the driver's error names (filesystem, device path, driver pod on the node).", rule.Probable, rule.Explained},
	{volMountSetUpFailed, []string{"FailedMount"},
		regexp.MustCompile(`MountVolume\.SetUp failed for volume "(?P<vol>[^"]+)"\s*:\s*(?P<detail>[^\n]+)`),
		"volume %[1]s cannot mount: %[2]s",
		"The kubelet could not set the volume up for the pod; until it does, no container starts.",
		"Fix what the kubelet's error names.", rule.Probable, rule.Explained},
	{volClaimMissing, []string{"FailedScheduling"},
		regexp.MustCompile(`persistentvolumeclaim "(?P<vol>[^"]+)" (?P<detail>not found)`),
		"the pod uses PersistentVolumeClaim %[1]s, which is %[2]s",
		"The scheduler will not place a pod whose claim does not exist.",
		"Create the claim (or fix claimName in the pod template); for a StatefulSet, check volumeClaimTemplates and the claim names it generates.", rule.Definitive, rule.Traced},
	{volMountTimeout, []string{"FailedMount"},
		regexp.MustCompile(`Unable to attach or mount volumes: unmounted volumes=\[(?P<vol>[^\]]*)\], unattached volumes=\[(?P<unattached>[^\]]*)\](?:, failed to process volumes=\[[^\]]*\])?: (?P<detail>[^\n]+)`),
		"volumes %[1]s did not attach or mount in time (%[2]s)",
		"The kubelet waits a bounded time for every volume to attach and mount before starting the containers, then gives up and retries; the error that blocks a volume is usually in a more specific event.",
		"Look at the pod's other FailedMount/FailedAttachVolume events and the volume's source (PVC binding, CSI driver on the node, ConfigMap/Secret existence).", rule.Fair, rule.Observed},
}

func (vf *volumeFailure) match(e *corev1.Event) (vol, detail, unattached string, ok bool) {
	found := false
	for _, r := range vf.Reasons {
		found = found || e.Reason == r
	}
	if !found {
		return "", "", "", false
	}
	m := vf.re.FindStringSubmatch(e.Message)
	if m == nil {
		return "", "", "", false
	}
	for i, name := range vf.re.SubexpNames() {
		switch name {
		case "vol":
			vol = m[i]
		case "detail":
			detail = strings.TrimSpace(m[i])
		case "unattached":
			unattached = m[i]
		}
	}
	return vol, detail, unattached, true
}

// podStuck: the pod has not started its containers (volumes are set up
// before any container starts), so a mount failure explains the present.
func podStuck(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodPending || p.Status.Phase == "" {
		return true
	}
	for _, cs := range kube.AllStatuses(p) {
		if w := cs.Status.State.Waiting; w != nil && (w.Reason == "ContainerCreating" || w.Reason == "PodInitializing") {
			return true
		}
	}
	return false
}

// volumeSource describes where a pod volume comes from, and the volume's
// name in the pod for a PV name (the attach-detach controller names PVs).
func volumeSource(c *rule.Pass, p *corev1.Pod, name string) (podVolume, source string) {
	for _, v := range p.Spec.Volumes {
		vs := v.VolumeSource
		var pvName string
		if vs.PersistentVolumeClaim != nil {
			if pvc := ClaimNamed(c, p.Namespace, vs.PersistentVolumeClaim.ClaimName); pvc != nil {
				pvName = pvc.Spec.VolumeName
			}
		}
		if v.Name != name && (pvName == "" || pvName != name) {
			continue
		}
		switch {
		case vs.ConfigMap != nil:
			return v.Name, "configMap " + vs.ConfigMap.Name
		case vs.Secret != nil:
			return v.Name, "secret " + vs.Secret.SecretName
		case vs.PersistentVolumeClaim != nil:
			s := "PVC " + vs.PersistentVolumeClaim.ClaimName
			if pvName != "" {
				s += ", PV " + pvName
			}
			return v.Name, s
		case vs.NFS != nil:
			return v.Name, fmt.Sprintf("NFS %s:%s", vs.NFS.Server, vs.NFS.Path)
		case vs.HostPath != nil:
			return v.Name, "hostPath " + vs.HostPath.Path
		case vs.CSI != nil:
			return v.Name, "CSI " + vs.CSI.Driver
		case vs.Projected != nil:
			return v.Name, "projected"
		case vs.EmptyDir != nil:
			return v.Name, "emptyDir"
		}
		return v.Name, ""
	}
	return name, ""
}

// checkVolumeEvents: a pod whose volumes cannot attach or mount, named
// volume by volume with what is missing.
func checkVolumeEvents(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		type hit struct {
			vf     *volumeFailure
			e      corev1.Event
			vol    string
			detail string
			unatt  string
		}
		var hits []hit
		seen := map[string]bool{}
		for _, e := range c.B.EventsFor(string(p.UID)) {
			for i := range volumeFailures {
				vf := &volumeFailures[i]
				vol, detail, unatt, ok := vf.match(&e)
				if !ok {
					continue
				}
				key := string(vf.Class) + "\x00" + vol
				if !seen[key] {
					seen[key] = true
					hits = append(hits, hit{vf, e, vol, detail, unatt})
				} else {
					for j := range hits { // keep the newest occurrence
						if hits[j].vf == vf && hits[j].vol == vol {
							hits[j].e, hits[j].detail = e, detail
						}
					}
				}
				break
			}
		}
		specific := 0
		for _, h := range hits {
			if h.vf.Class != volMountTimeout {
				specific++
			}
		}
		var timeouts []string
		for _, h := range hits {
			if h.vf.Class == volMountTimeout {
				timeouts = append(timeouts, c.Evidence(fmt.Sprintf("Event %s ×%d: %s", h.e.Reason, max(h.e.Count, 1), kube.FirstLine(h.e.Message)), "event on "+kube.PodRef(p),
					fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", kube.NSFlag(p), p.Name, h.e.Reason)))
			}
		}
		for _, h := range hits {
			if h.vf.Class == volMountTimeout && specific > 0 {
				continue // the specific event says why; the timeout only repeats it
			}
			f := volumeFinding(c, p, h.vf, h.e, h.vol, h.detail, h.unatt)
			if h.vf.Class != volMountTimeout {
				f.Evidence = append(f.Evidence, timeouts...)
			}
			out = append(out, f)
		}
	}
	return out
}

func volumeFinding(c *rule.Pass, p *corev1.Pod, vf *volumeFailure, e corev1.Event, vol, detail, unattached string) rule.Finding {
	kind, owner := kube.OwnerName(c, p)
	podVol, source := volumeSource(c, p, vol)
	named := podVol
	if source != "" {
		named = fmt.Sprintf("%s (%s)", podVol, source)
	}
	if vf.Class == volMountTimeout {
		named = "[" + vol + "]"
		var parts []string
		for _, v := range strings.Fields(vol) {
			if pv, src := volumeSource(c, p, v); src != "" {
				parts = append(parts, fmt.Sprintf("%s (%s)", pv, src))
			} else {
				parts = append(parts, v)
			}
		}
		if len(parts) > 0 {
			named = strings.Join(parts, ", ")
		}
	}
	if vf.Class == volClaimMissing {
		named = vol
	}
	title := fmt.Sprintf(vf.Title, named, detail)
	f := rule.Finding{
		Category: rule.Volume.Sub(string(vf.Class)), Verdict: report.Validated, Confidence: vf.Conf, Strength: vf.Strength,
		Current: podStuck(p), Subject: p.Name + "/" + podVol,
		Evidence: []string{c.Evidence(fmt.Sprintf("Event %s ×%d: %s", e.Reason, max(e.Count, 1), kube.FirstLine(e.Message)), "event on "+kube.PodRef(p),
			fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", kube.NSFlag(p), p.Name, e.Reason))},
		Hypothesis: fmt.Sprintf("Pod %s cannot start because %s", p.Name, title),
		Title:      title,
		Summary:    fmt.Sprintf("Pod %s cannot start its containers because %s.", p.Name, title),
		Mechanism:  vf.Mech,
		Culprit:    fmt.Sprintf("%s volume %s: %s", kube.PodRef(p), named, detail),
	}
	if source != "" {
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod volume %s comes from %s", podVol, source), kube.PodRef(p)+" .spec.volumes["+podVol+"]",
			fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.volumes[?(@.name=="%s")]}'`, p.Name, kube.NSFlag(p), podVol)))
	}
	if !f.Current {
		// Volumes are set up before any container starts: a pod that runs
		// got past this failure, which is history and no cause.
		f.Verdict = report.Refuted
		f.Hypothesis += " (resolved: the pod has started since)"
	}
	fix := report.Action{Kind: report.Immediate, Description: vf.Fix,
		Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p))}}
	switch vf.Class {
	case volMountConfigMapMissing:
		if c.B.IsMissing("ConfigMap", p.Namespace, detail) {
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("ConfigMap %s/%s does not exist (404)", p.Namespace, detail), "configmap/"+detail,
				fmt.Sprintf("kubectl get configmap %s %s", detail, kube.NSFlag(p))))
		}
		f.Culprit = fmt.Sprintf("%s volume %s → configmap %s (not found)", kube.PodRef(p), podVol, detail)
		fix.Commands = []string{fmt.Sprintf("kubectl get configmaps %s", kube.NSFlag(p)), fmt.Sprintf("kubectl create configmap %s %s --from-file=<file>", detail, kube.NSFlag(p))}
		fix.Risk = "the pod starts with whatever the new ConfigMap holds"
	case volMountSecretMissing:
		f.Culprit = fmt.Sprintf("%s volume %s → secret %s (not found)", kube.PodRef(p), podVol, detail)
		fix.Commands = []string{fmt.Sprintf("kubectl get secrets %s", kube.NSFlag(p)), fmt.Sprintf("kubectl create secret generic %s %s --from-file=<file>", detail, kube.NSFlag(p))}
		fix.Risk = "the pod starts with whatever the new Secret holds"
	case volAttachMultiAttach:
		pvName := vol
		fix.Commands = []string{
			fmt.Sprintf("kubectl get volumeattachments -o custom-columns=NAME:.metadata.name,PV:.spec.source.persistentVolumeName,NODE:.spec.nodeName,ATTACHED:.status.attached | grep -E 'NAME|%s'", pvName),
			fmt.Sprintf("kubectl get pods %s -o wide", kube.NSFlag(p)),
		}
		fix.Risk = "never force-detach a volume a running pod still writes to: it corrupts the filesystem"
		f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm, Description: "Use a rollout strategy that stops the old pod before starting the new one for ReadWriteOnce volumes.",
			Commands: []string{fmt.Sprintf(`kubectl patch %s/%s %s --type=merge -p '{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}'`, kind, owner, kube.NSFlag(p))},
			Risk:     "Recreate means a short outage at each rollout"})
		if kind != "deployment" {
			f.Actions = nil
		}
	case volMountTimeout:
		if unattached != "" {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Volumes not yet attached: [%s].", unattached))
		}
		f.Culprit = fmt.Sprintf("%s volumes %s", kube.PodRef(p), named)
	case volClaimMissing:
		f.Culprit = fmt.Sprintf("%s .spec.volumes[*].persistentVolumeClaim.claimName %s (not found)", kube.PodRef(p), vol)
		fix.Commands = []string{fmt.Sprintf("kubectl get pvc %s", kube.NSFlag(p))}
	}
	f.Actions = append([]report.Action{fix}, f.Actions...)
	return f
}
