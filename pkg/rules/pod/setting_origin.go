package pod

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// SettingOrigin is the rule pod/setting-origin.
var SettingOrigin = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/setting-origin",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop},
		Needs:    append([]rule.Need{rule.ConfigMaps}, rule.PodEvidence...),
		Doc:      "A crashing container that rejects a setting its log names (cookie_secret, default-authentication-plugin), traced to where the pod spec sets it: a flag in command or args, an environment variable the program maps the setting to (OAUTH2_PROXY_COOKIE_SECRET for cookie_secret), or a ConfigMap or Secret key; for an option the program does not know, the version its log reports beside the image tag that pulled it.",
	},
	Check: checkSettingOrigin,
}

// settingOrigin is where the pod spec sets one setting.
type settingOrigin struct {
	setting string // as the log names it
	where   string // "env OAUTH2_PROXY_COOKIE_SECRET", "argument --x=y"
	from    string // "key k of Secret s", "" for a literal or an argument
	field   string // the spec field, for the evidence's command
	fix     string // what to correct, at the origin
}

var (
	// unknownOptionRe: the program does not know the option at all, which
	// for one that worked before means the version changed under it.
	unknownOptionRe = regexp.MustCompile(`(?i)\bunknown (?:variable|option|(?:long |short )?flag|argument|parameter|setting|directive|config(?:uration)? key)|\bunrecognized (?:[\w-]+ )?(?:option|argument|flag|parameter)|flag provided but not defined|\bno such option\b|\binvalid option\b|\b(?:field|key) not found\b|\bunknown (?:field|key)s?\b|cannot find field`)
	// versionRe is a release number x.y.z (x.y.z.w is an address).
	versionRe = regexp.MustCompile(`\bv?\d+\.\d+\.\d+(?:\.\d+)?\b`)
	// bannerRe marks a line that states the program's own version.
	bannerRe = regexp.MustCompile(`(?i)\b(?:version|starting|started|server|release|running)\b`)
)

// checkSettingOrigin follows a crash whose decisive line rejects its
// configuration to the place in the pod spec that sets the setting the
// line names. It speaks only when the spec sets it: a setting the image's
// own config file holds is not the pod's to show.
func checkSettingOrigin(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, crash := range c.ResultOf(CrashLoop) {
		podName, ctrName, _ := strings.Cut(crash.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		spec := kube.SpecOf(p, ctrName)
		dec, fromPrev := logs.LastDecisive(c, p, ctrName)
		// A line of no specific class (mysqld's "[ERROR] Different
		// lower_case_table_names settings for server ('1') and data
		// dictionary ('0')") that names a setting the pod sets is about it.
		if spec == nil || dec == nil || dec.Pattern.Class != logs.InvalidConfig && !dec.Pattern.Generic() {
			continue
		}
		// The log already says where the value came from (Spring Boot's
		// "Origin: System Environment Property"): the crash names it.
		if strings.HasPrefix(logs.SubjectOf(logs.InvalidConfig, dec.Line), "environment variable ") {
			continue
		}
		o := findSettingOrigin(c, p, spec, dec.Line)
		if o == nil {
			continue
		}
		out = append(out, settingOriginFinding(c, p, spec, crash, dec, fromPrev, o))
	}
	return out
}

// findSettingOrigin is the first setting the line names that the
// container's spec sets, flags first (a flag names the setting itself).
func findSettingOrigin(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, line string) *settingOrigin {
	files := mountedConfigMapFiles(c, p, spec)
	for _, name := range settingNames(line) {
		if o := flagOrigin(spec, name); o != nil {
			return o
		}
		if o := envOrigin(c, p, spec, name); o != nil {
			return o
		}
		if o := fileOrigin(c, p, files, name); o != nil {
			return o
		}
	}
	return valueOrigin(spec, line)
}

// settingNames are the candidate setting names of a line, in order.
func settingNames(line string) []string {
	var out []string
	for _, m := range applog.SettingNameRe.FindAllString(line, -1) {
		if versionRe.MatchString(m) || strings.HasSuffix(m, ".go") || strings.Contains(m, "..") {
			continue
		}
		out = append(out, m)
	}
	return out
}

// settingKey is a name normalised the way programs map settings to
// variables: upper case, words joined by "_" (cookie-secret, cookieSecret
// and cookie.secret are COOKIE_SECRET).
func settingKey(name string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case r == '-' || r == '.' || r == '_':
			b.WriteByte('_')
			prevLower = false
		case unicode.IsUpper(r) && prevLower:
			b.WriteByte('_')
			b.WriteRune(r)
			prevLower = false
		default:
			b.WriteRune(unicode.ToUpper(r))
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		}
	}
	return b.String()
}

// keyMatches: a variable or key sets the setting when it is its key, or
// its key after the program's prefix (OAUTH2_PROXY_, GF_SECURITY_).
func keyMatches(varName, key string) bool {
	v := settingKey(varName)
	return v == key || strings.HasSuffix(v, "_"+key)
}

// flagOrigin is the command or args flag that sets the setting.
func flagOrigin(spec *corev1.Container, name string) *settingOrigin {
	key := settingKey(name)
	for _, list := range []struct {
		field string
		args  []string
	}{{"args", spec.Args}, {"command", spec.Command}} {
		for i, a := range list.args {
			if !strings.HasPrefix(a, "-") {
				continue
			}
			flag, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if settingKey(flag) != key {
				continue
			}
			arg := a
			if !hasValue && i+1 < len(list.args) && !strings.HasPrefix(list.args[i+1], "-") {
				value = list.args[i+1]
				arg += " " + value
			}
			return &settingOrigin{setting: name, where: "argument " + arg, field: list.field,
				fix: fmt.Sprintf("Correct or remove the argument %s in the container's %s", arg, list.field)}
		}
	}
	return nil
}

// envOrigin is the variable (literal, ConfigMap or Secret key, or an
// envFrom source's key) that sets the setting.
func envOrigin(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, name string) *settingOrigin {
	key := settingKey(name)
	if !strings.Contains(key, "_") {
		return nil
	}
	for _, e := range spec.Env {
		if !keyMatches(e.Name, key) {
			continue
		}
		o := &settingOrigin{setting: name, where: "env " + e.Name, field: "env"}
		switch {
		case e.ValueFrom == nil:
			o.fix = fmt.Sprintf("Correct the value of %s in the container's env", e.Name)
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			o.from = fmt.Sprintf("key %s of Secret %s", ref.Key, ref.Name)
			o.fix = fmt.Sprintf("Correct key %s of Secret %s", ref.Key, ref.Name)
		case e.ValueFrom.ConfigMapKeyRef != nil:
			ref := e.ValueFrom.ConfigMapKeyRef
			o.from = fmt.Sprintf("key %s of ConfigMap %s", ref.Key, ref.Name)
			o.fix = fmt.Sprintf("Correct key %s of ConfigMap %s", ref.Key, ref.Name)
		default:
			continue
		}
		return o
	}
	for _, src := range spec.EnvFrom {
		if src.ConfigMapRef == nil {
			continue
		}
		cm := c.B.ConfigMap(p.Namespace, src.ConfigMapRef.Name)
		if cm == nil {
			continue
		}
		for k := range cm.Data {
			if keyMatches(src.Prefix+k, key) {
				return &settingOrigin{setting: name, where: "env " + src.Prefix + k, field: "envFrom",
					from: fmt.Sprintf("key %s of ConfigMap %s (envFrom)", k, cm.Name), fix: fmt.Sprintf("Correct key %s of ConfigMap %s", k, cm.Name)}
			}
		}
	}
	return nil
}

// runningVersion is the version the program's own start-up lines report
// ("mysqld 8.4.0) starting", "Starting Grafana version=10.2.3"), "" when
// none does.
func runningVersion(text, except string) string {
	for _, l := range strings.Split(text, "\n") {
		if !bannerRe.MatchString(l) || strings.Contains(l, except) {
			continue
		}
		_, l = logs.SplitTimestamp(l)
		for _, v := range versionRe.FindAllString(l, -1) {
			if strings.Count(v, ".") == 2 {
				return strings.TrimPrefix(v, "v")
			}
		}
	}
	return ""
}

// movingTag says how an image's tag relates to the version it runs: a tag
// that is not that full version ("8", "latest", none) moves with releases.
func movingTag(image, running string) string {
	tag := kube.ImageTag(image)
	if strings.Contains(image, "@") || running != "" && strings.TrimPrefix(tag, "v") == running {
		return ""
	}
	switch {
	case (tag == "" || tag == "latest") && running == "":
		// The log states no version, but an image that names none pulls
		// whatever release is latest at each pull.
		return fmt.Sprintf("image %s names no version (latest): each pull may bring a newer release", image)
	case running == "":
		return ""
	case tag == "" || tag == "latest":
		return fmt.Sprintf("image %s names no version and now pulls %s", image, running)
	case strings.HasPrefix(running, strings.TrimPrefix(tag, "v")+"."):
		return fmt.Sprintf("image %s is a moving tag that now pulls %s", image, running)
	}
	return ""
}

func settingOriginFinding(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, crash rule.Finding, dec *logs.Decisive, fromPrev bool, o *settingOrigin) rule.Finding {
	f := crash
	f.Strength, f.Current, f.Confidence = rule.Traced, true, rule.Strong
	f.Category = crashRoot(crash.Category).Sub(string(logs.InvalidConfig), "Setting")
	origin := o.where
	if o.from != "" {
		origin += ", from " + o.from
	}
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s sets %s with %s", spec.Name, o.setting, origin),
		fmt.Sprintf("%s .spec.containers[%s].%s", kube.PodRef(p), spec.Name, o.field), containerSpecCmd(p, spec.Name, o.field)))
	why := fmt.Sprintf("the application rejects it: %s", dec.Line)
	fix := o.fix + " to a value this program accepts, then restart the pods (settings are read at start-up)."
	version := ""
	if unknownOptionRe.MatchString(dec.Line) {
		cur, prev := c.B.LogsFor(p.Name, spec.Name)
		log := cur
		if fromPrev {
			log = prev
		}
		if log != nil {
			version = runningVersion(log.Text, dec.Line)
		}
		why = fmt.Sprintf("the program does not know the option (%s)", dec.Line)
		tag := movingTag(spec.Image, version)
		switch {
		case version != "":
			why += fmt.Sprintf("; the log reports version %s", version)
			if tag != "" {
				why += ", and " + tag + ": the option was removed or renamed by that release"
				f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s runs image %s; its log reports version %s", spec.Name, spec.Image, version),
					fmt.Sprintf("%s .spec.containers[%s].image and its log", kube.PodRef(p), spec.Name), containerSpecCmd(p, spec.Name, "image")))
			}
		case tag != "":
			why += "; " + tag + ", so a release that removed or renamed the option may be what runs now"
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s runs image %s, which names no version", spec.Name, spec.Image),
				fmt.Sprintf("%s .spec.containers[%s].image", kube.PodRef(p), spec.Name), containerSpecCmd(p, spec.Name, "image")))
		default:
			why += fmt.Sprintf("; the container runs image %s", spec.Image)
		}
		fix = o.fix + " to an option this version accepts: a misspelling, or an option another release has."
		switch {
		case tag != "" && version != "":
			fix = o.fix + fmt.Sprintf(" to what %s accepts (its release notes name the option's replacement), or pin the image to the release the option was written for (a full version tag, not %s).", version, spec.Image)
		case tag != "":
			fix = o.fix + fmt.Sprintf(" to what the release now pulled accepts, or pin the image to the release the configuration was written for (a full version tag, not %s).", spec.Image)
		}
	}
	f.Title = fmt.Sprintf("container %s rejects setting %s (set by %s)", spec.Name, o.setting, origin)
	f.Hypothesis = fmt.Sprintf("%s sets %s, and %s", origin, o.setting, why)
	f.Culprit = fmt.Sprintf("%s of %s container %s sets %s: %s", origin, kube.PodRef(p), spec.Name, o.setting, why)
	f.Mechanism = fmt.Sprintf("The program validates its settings at start-up and exits on one it rejects; the pod spec is where this one comes from. %s", crash.Mechanism)
	f.Actions = append([]report.Action{{Kind: report.Immediate, Description: fix}}, crash.Actions...)
	f.Summary = fmt.Sprintf("%s. %s", upperFirst(f.Title), crash.Summary)
	return f
}
