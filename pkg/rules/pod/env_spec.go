package pod

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// EnvSpec is the rule pod/env-spec.
var EnvSpec = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/env-spec",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop},
		Needs:    rule.PodEvidence,
		Doc:      "A crashing container's missing variable traced to its env in the pod spec: undefined, empty, misspelled, defined in another container, or referenced as a literal $(VAR).",
	},
	Check: checkEnvSpec,
}

// varRefRe is a $(VAR) reference in command or args; $$(VAR) is the escape
// that keeps it literal on purpose.
var varRefRe = regexp.MustCompile(`(?:^|[^$])\$\((?P<name>[A-Za-z_][A-Za-z0-9_]*)\)`)

// checkEnvSpec reads the crash loop's finding for each container whose
// decisive log line names a missing variable (or prints a literal $(VAR)),
// and for each container whose command or args reference a variable its env
// does not define, and says what the container's spec does with that
// variable. It speaks only when the spec shows the fault; a variable taken
// from a ConfigMap is pod/config-source's, and one that may come from an
// envFrom source is not decided here.
func checkEnvSpec(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, crash := range c.ResultOf(CrashLoop) {
		podName, ctrName, _ := strings.Cut(crash.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		spec := kube.SpecOf(p, ctrName)
		if spec == nil {
			continue
		}
		var line string
		var fromPrev bool
		var names []string
		if dec, prev := logs.LastDecisive(c, p, ctrName); dec != nil && dec.Pattern.Class == logs.MissingEnv {
			line, fromPrev = dec.Line, prev
			// A literal $(VAR) in the log counts only when the spec holds the
			// reference (below): the image's own CMD is never expanded, and
			// the variable need not be one the application requires.
			if n := subjectVar(logs.SubjectOf(logs.MissingEnv, dec.Line)); n != "" && !strings.Contains(dec.Line, "$("+n+")") {
				names = append(names, n)
			}
		}
		// A literal $(VAR) in command/args is a fault: the kubelet passed
		// the program the characters "$(VAR)". It is the cause when the log
		// says nothing more specific, or says what a literal argument
		// provokes; not when the kubelet killed the container (a probe) or
		// the log names another cause.
		cat := string(crash.Category)
		refsExplain := crash.Strength == rule.Observed || strings.Contains(cat, "/"+logs.MissingEnv.String()) ||
			strings.Contains(cat, "/"+logs.InvalidConfig.String()) || strings.Contains(cat, "/"+logs.CommandNotFound.String())
		for _, n := range undefinedRefs(spec) {
			if !refsExplain {
				break
			}
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		for _, n := range names {
			if f := envSpecFinding(c, p, spec, crash, n, line, fromPrev); f != nil {
				out = append(out, *f)
				break // one spec fact per container: the first the log names
			}
		}
	}
	return out
}

// undefinedRefs lists the variables command and args reference as $(VAR)
// that the container's env does not define. The kubelet expands a reference
// only from the container's own env and envFrom; with envFrom the variable
// may come from a source this rule does not read, so none is reported.
func undefinedRefs(spec *corev1.Container) []string {
	if len(spec.EnvFrom) > 0 {
		return nil
	}
	var out []string
	for _, arg := range append(slices.Clone(spec.Command), spec.Args...) {
		for _, m := range submatch.FindAll(varRefRe, arg, -1) {
			if name := m.Get("name"); envVar(spec, name) == nil && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

func envVar(spec *corev1.Container, name string) *corev1.EnvVar {
	for i := range spec.Env {
		if spec.Env[i].Name == name {
			return &spec.Env[i]
		}
	}
	return nil
}

func envNames(spec *corev1.Container) []string {
	var out []string
	for _, e := range spec.Env {
		out = append(out, e.Name)
	}
	return out
}

// referencedInArgs: command or args hold $(name).
func referencedInArgs(spec *corev1.Container, name string) bool {
	for _, arg := range append(slices.Clone(spec.Command), spec.Args...) {
		for _, m := range submatch.FindAll(varRefRe, arg, -1) {
			if m.Get("name") == name {
				return true
			}
		}
	}
	return false
}

// nearestEnv is a defined name at most two edits from name (case and
// separators aside), "" if none.
func nearestEnv(name string, defined []string) string {
	if n := NearestConfigKey(name, defined); n != "" && n != name {
		return n
	}
	return ""
}

// affixedEnv is a defined name that is name with whole "_" segments added
// or removed at its start or end (RAILS_SECRET_KEY_BASE for
// SECRET_KEY_BASE, DB_URL for APP_DB_URL), and the segments that differ;
// the shared part must itself hold a "_" so that PORT never pairs with
// REDIS_PORT.
func affixedEnv(name string, defined []string) (string, string) {
	for _, d := range defined {
		long, short := d, name
		if len(short) > len(long) {
			long, short = short, long
		}
		if long == short || !strings.Contains(short, "_") {
			continue
		}
		switch {
		case strings.HasSuffix(long, "_"+short):
			return d, "the prefix " + strings.TrimSuffix(long, short)
		case strings.HasPrefix(long, short+"_"):
			return d, "the suffix " + strings.TrimPrefix(long, short)
		}
	}
	return "", ""
}

// envSpecFinding says what container spec does with variable name, built on
// the crash finding so that its evidence and mechanism stay; nil when the
// spec does not show a fault (a value from a ConfigMap or Secret, a literal
// that is set, a possible envFrom source).
func envSpecFinding(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, crash rule.Finding, name, line string, fromPrev bool) *rule.Finding {
	f := crash
	defined := envNames(spec)
	def := envVar(spec, name)
	literal := referencedInArgs(spec, name) && def == nil && len(spec.EnvFrom) == 0
	ctr := spec.Name
	// The crash finding's own words for what the container does: a crash
	// loop, a single failure (restartPolicy Never), an init container.
	verb := "crashes"
	if crash.Category.Root() == rule.ContainerFailed || strings.Contains(string(crash.Category), string(rule.ContainerFailed)) {
		verb = "failed"
	}
	who := "container " + ctr
	if st := containerStatusNamed(p, ctr); st != nil {
		term := st.LastTerminationState.Terminated
		if term == nil {
			term = st.State.Terminated
		}
		verb += kube.ExitSuffix(term)
	}
	if isInitContainer(p, ctr) {
		who = "init container " + ctr
	}
	where := fmt.Sprintf("%s container %s", kube.PodRef(p), ctr)
	definedText := "no variables"
	if len(defined) > 0 {
		definedText = strings.Join(defined, ", ")
	}
	specEv := c.Evidence(fmt.Sprintf("Container %s's env defines %s%s", ctr, definedText, envFromText(spec)),
		fmt.Sprintf("%s .spec.containers[%s].env", kube.PodRef(p), ctr), containerSpecCmd(p, ctr, "env"))
	var sub string
	var fix report.Action
	switch {
	case literal:
		sub = "UndefinedRef"
		args := c.Evidence(fmt.Sprintf("Container %s's command/args reference $(%s): %q", ctr, name, strings.Join(append(slices.Clone(spec.Command), spec.Args...), " ")),
			fmt.Sprintf("%s .spec.containers[%s].command, .args", kube.PodRef(p), ctr), containerSpecCmd(p, ctr, "args"))
		f.Evidence = append(f.Evidence, args)
		f.Mechanism = fmt.Sprintf("The kubelet expands $(VAR) in command and args only from the container's own env; a reference to a variable the env does not define is left as is, so the program receives the literal text $(%s).", name)
		near := nearestEnv(name, defined)
		if near != "" {
			f.Title = fmt.Sprintf("%s %s: its args reference $(%s), but its env defines %s, not %s (a typo), so the program receives the literal $(%s)", who, verb, name, near, name, name)
			f.Culprit = fmt.Sprintf("%s args $(%s): env %s is defined, %s is not (a typo)", where, name, near, name)
			fix = ContainerPatch(c, p, ctr, map[string]any{"args": replaceRef(spec.Args, name, near)},
				fmt.Sprintf("Correct the reference in the args from $(%s) to $(%s), the variable the env defines.", name, near), "")
			if len(spec.Args) == 0 || !slices.ContainsFunc(spec.Args, func(a string) bool { return strings.Contains(a, "$("+name+")") }) {
				fix = ContainerPatch(c, p, ctr, map[string]any{"command": replaceRef(spec.Command, name, near)},
					fmt.Sprintf("Correct the reference in the command from $(%s) to $(%s), the variable the env defines.", name, near), "")
			}
		} else {
			f.Title = fmt.Sprintf("%s %s: its args reference $(%s), but %s is not in its env, so the program receives the literal $(%s)", who, verb, name, name, name)
			f.Culprit = fmt.Sprintf("%s args $(%s): %s is not defined in the container's env", where, name, name)
			fix = ContainerPatch(c, p, ctr, map[string]any{"env": []any{map[string]any{"name": name, "value": "<value>"}}},
				fmt.Sprintf("Define %s in container %s's env (a value, or valueFrom a ConfigMap or Secret key), so the kubelet can expand $(%s).", name, ctr, name), "")
		}
		f.Hypothesis = fmt.Sprintf("Container %s's arguments hold the literal $(%s) because %s is not defined in its env", ctr, name, name)
	case def != nil && def.ValueFrom != nil:
		return nil // pod/config-source follows ConfigMap references; Secrets are not read
	case def != nil && def.Value == "":
		sub = "EmptyValue"
		f.Title = fmt.Sprintf("%s %s: env %s is defined in its spec with an empty value", who, verb, name)
		f.Hypothesis = fmt.Sprintf("Container %s exits because its spec sets %s to the empty string", ctr, name)
		f.Culprit = fmt.Sprintf("%s env %s (defined, value empty)", where, name)
		specEv = c.Evidence(fmt.Sprintf("Container %s's env sets %s to \"\" (a literal empty value)", ctr, name),
			fmt.Sprintf("%s .spec.containers[%s].env", kube.PodRef(p), ctr), containerSpecCmd(p, ctr, "env"))
		fix = ContainerPatch(c, p, ctr, map[string]any{"env": []any{map[string]any{"name": name, "value": "<value>"}}},
			fmt.Sprintf("Give %s a value in container %s's env (or take it from a ConfigMap or Secret key).", name, ctr), "")
	case def != nil || len(spec.EnvFrom) > 0:
		return nil // set, or possibly set by an envFrom source
	default:
		if near := nearestEnv(name, defined); near != "" {
			sub = "Misspelled"
			nd := envVar(spec, near)
			f.Title = fmt.Sprintf("%s %s: env %s is defined, %s (which the application reads) is not: a typo", who, verb, near, name)
			f.Hypothesis = fmt.Sprintf("Container %s's spec misspells %s as %s, so the application does not find %s", ctr, name, near, name)
			f.Culprit = fmt.Sprintf("%s env %s (misspelled: the application reads %s)", where, near, name)
			renamed := *nd.DeepCopy()
			renamed.Name = name
			fix = ContainerPatch(c, p, ctr, map[string]any{"env": []any{map[string]any{"name": near, "$patch": "delete"}, renamed}},
				fmt.Sprintf("Rename env %s to %s in container %s (the name the application reads), keeping its value.", near, name, ctr), "")
			break
		}
		if near, affix := affixedEnv(name, defined); near != "" {
			sub = "NearMiss"
			nd := envVar(spec, near)
			f.Title = fmt.Sprintf("%s %s: env %s is defined, but the application reads %s, which is not (the names differ by %s)", who, verb, near, name, affix)
			f.Hypothesis = fmt.Sprintf("Container %s's spec sets %s, not the %s the application reads", ctr, near, name)
			f.Culprit = fmt.Sprintf("%s env %s (not defined; the near miss %s is)", where, name, near)
			same := map[string]any{"name": name, "value": "<the value of " + near + ">"}
			if nd.ValueFrom != nil {
				same = map[string]any{"name": name, "valueFrom": nd.ValueFrom.DeepCopy()}
			}
			fix = ContainerPatch(c, p, ctr, map[string]any{"env": []any{same}},
				fmt.Sprintf("Define %s in container %s's env with the same value as %s (keep %s if something else reads it).", name, ctr, near, near), "")
			break
		}
		other := ""
		for _, o := range append(slices.Clone(p.Spec.InitContainers), p.Spec.Containers...) {
			if o.Name != ctr && envVar(&o, name) != nil {
				other = o.Name
				break
			}
		}
		if other != "" {
			sub = "OtherContainer"
			od := envVar(kube.SpecOf(p, other), name)
			f.Title = fmt.Sprintf("%s %s: env %s is defined in container %s only, not in %s", who, verb, name, other, ctr)
			f.Hypothesis = fmt.Sprintf("%s is set on container %s, but container %s, which reads it, does not have it", name, other, ctr)
			f.Culprit = fmt.Sprintf("%s env %s (defined only in container %s)", where, name, other)
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s's env defines %s", other, name),
				fmt.Sprintf("%s .spec.containers[%s].env", kube.PodRef(p), other), containerSpecCmd(p, other, "env")))
			fix = ContainerPatch(c, p, ctr, map[string]any{"env": []any{*od.DeepCopy()}},
				fmt.Sprintf("Define %s in container %s's env too (environment variables are per container).", name, ctr), "")
			break
		}
		sub = "Undefined"
		f.Title = fmt.Sprintf("%s %s: the application requires environment variable %s, which the container spec does not define", who, verb, name)
		f.Hypothesis = fmt.Sprintf("Container %s's spec does not define %s, which the application requires", ctr, name)
		f.Culprit = fmt.Sprintf("%s env %s (not defined; the container defines %s)", where, name, definedText)
		fix = ContainerPatch(c, p, ctr, map[string]any{"env": []any{map[string]any{"name": name, "value": "<value>"}}},
			fmt.Sprintf("Define %s in container %s's env (a value, or valueFrom a ConfigMap or Secret key).", name, ctr), "")
	}
	f.Evidence = append(f.Evidence, specEv)
	f.Category = crash.Category
	if !strings.Contains(string(f.Category), "/"+logs.MissingEnv.String()) {
		f.Category = f.Category.Sub(logs.MissingEnv.String())
	}
	f.Category = f.Category.Sub(sub)
	f.Strength, f.Confidence = rule.Traced, rule.Definitive
	if sub == "Undefined" || sub == "NearMiss" {
		f.Confidence = rule.Strong // the application may also read a file
	}
	f.Summary = fmt.Sprintf("%s. %s", upperFirst(f.Title), crash.Summary)
	if line != "" {
		f.Contributing = append(f.Contributing, fmt.Sprintf("The application's log names %s (%s instance): %q.", name, kube.Instance(fromPrev), line))
	}
	// The crash finding's own steps (its log, the workload, a rollback)
	// follow the spec fix.
	f.Actions = append([]report.Action{fix}, crash.Actions...)
	f.Actions = append(f.Actions, report.Action{Kind: report.Check, Description: "Compare the names the application reads with the container's env, command and args.",
		Commands: []string{containerSpecCmd(p, ctr, "env"), containerSpecCmd(p, ctr, "args")}})
	return &f
}

func envFromText(spec *corev1.Container) string {
	if len(spec.EnvFrom) == 0 {
		return " and has no envFrom"
	}
	return " and imports envFrom sources"
}

// replaceRef rewrites $(from) to $(to) in a command or args list.
func replaceRef(list []string, from, to string) []string {
	out := slices.Clone(list)
	for i := range out {
		out[i] = strings.ReplaceAll(out[i], "$("+from+")", "$("+to+")")
	}
	return out
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
