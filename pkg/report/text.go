package report

// MapText replaces every text of the report with f of it: every field a
// person or an agent wrote, the markdown Source and the notes included.
// The engine passes its redaction (redact.Clean) so the report as data
// (investigation.json, -o json, MCP results) is what its markdown is.
// Identifiers the plugin set and compares (levels, verdicts, action kinds,
// milestones) are left alone.
func (r *Report) MapText(f func(string) string) {
	for _, p := range []*string{&r.IncidentID, &r.Cluster, &r.Context, &r.Agent, &r.Title, &r.Summary, &r.Severity,
		&r.Resource.APIVersion, &r.Resource.Kind, &r.Resource.Name, &r.Resource.Namespace,
		&r.RootCause.Statement, &r.RootCause.Mechanism, &r.RootCause.Culprit, &r.RootCause.Category, &r.Source, &r.ConfidenceCap} {
		*p = f(*p)
	}
	mapAll(f, r.DegradedReasons, r.Symptoms, r.RuledOut, r.Notes, r.RootCause.Contributing, r.Addenda)
	for i := range r.Evidence {
		e := &r.Evidence[i]
		e.Fact, e.Source, e.Command = f(e.Fact), f(e.Source), f(e.Command)
		for j := range e.Claims {
			c := &e.Claims[j]
			c.Text, c.Basis = f(c.Text), f(c.Basis)
		}
	}
	for i := range r.Timeline {
		r.Timeline[i].Fact = f(r.Timeline[i].Fact)
	}
	for i := range r.Hypotheses {
		r.Hypotheses[i].Statement = f(r.Hypotheses[i].Statement)
	}
	for i := range r.Actions {
		r.Actions[i].mapText(f)
	}
	for i := range r.Withheld {
		r.Withheld[i].Action.mapText(f)
		r.Withheld[i].Reason = f(r.Withheld[i].Reason)
	}
}

func (a *Action) mapText(f func(string) string) {
	a.Description, a.Risk = f(a.Description), f(a.Risk)
	mapAll(f, a.Commands)
}

func mapAll(f func(string) string, lists ...[]string) {
	for _, l := range lists {
		for i, s := range l {
			l[i] = f(s)
		}
	}
}
