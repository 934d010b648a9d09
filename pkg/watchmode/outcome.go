package watchmode

import (
	"context"
	"fmt"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/metrics"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/watcher"
)

// triage runs one fault to an incident, through the engine a one-shot
// triage uses, on the cluster the fault names.
func (r *run) triage(ctx context.Context, ev *fault.Event) (*incident.Incident, error) {
	name := r.clusters.ClusterOf(ev.Cluster)
	c, err := r.clusters.Get(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("connect to cluster %q: %w", name, err)
	}
	log := r.log // the engine adds incident_id, cluster and event
	report := func(p progress.Event) { log.Debug(p.String(), "event", ev.EventID) }
	res, err := r.engine.Fault(ctx, c, ev, report)
	if err != nil {
		return nil, err
	}
	if res.RecordErr != nil {
		// The record on disk is stale; the outcome line says what happened
		// and the log where it is.
		log.Error("incident outcome not recorded", "incident_id", res.Incident.IncidentID, "error", res.RecordErr, "workspace", res.Incident.Workspace)
	}
	r.publish(ctx, res.Incident)
	return res.Incident, nil
}

// publish uploads a finished incident; a failure is logged, and the
// workspace stays on disk with its record saying why.
func (r *run) publish(ctx context.Context, inc *incident.Incident) {
	if r.objects == nil || inc == nil {
		return
	}
	start := time.Now()
	if err := r.objects.Publish(ctx, inc, r.cfg.Store.KeepLocal); err != nil {
		r.log.Error("incident not stored", "incident_id", inc.IncidentID, "store", r.objects.String(), "error", err)
		return
	}
	r.log.Info("incident stored", "incident_id", inc.IncidentID, "location", inc.StoredAt(), "took", time.Since(start).Round(time.Millisecond).String(), "local_copy", r.cfg.Store.KeepLocal)
}

// notifiable is the incident to notify about: the outcome's, or, when
// none could be created (the cluster refused us), a failed record of the
// fault, so Slack hears of it and the failure streak counts it.
func (r *run) notifiable(out watcher.Outcome) *incident.Incident {
	if out.Incident != nil {
		return out.Incident
	}
	now := time.Now()
	inc := incident.New("(none)", out.Event, out.Cluster, r.cfg.Agent.Name(), now.Add(-out.Took))
	inc.Cluster = out.Cluster
	inc.Status, inc.CompletedAt = incident.Failed, &now
	inc.FailureReason = "no incident was created: " + out.Err.Error()
	return inc
}

// logOutcome logs the finished incident with the fields log pipelines key on.
func (r *run) logOutcome(_ context.Context, out watcher.Outcome) {
	attrs := append(watcher.EventAttrs(out.Event, out.Cluster), "took", out.Took.Round(time.Millisecond).String())
	if out.Incident == nil {
		r.log.Error("fault not triaged", append(attrs, "error", out.Err)...)
		return
	}
	inc := out.Incident
	attrs = append(attrs, "incident_id", inc.IncidentID, "status", string(inc.Status), "workspace", inc.Workspace, "agent", inc.Agent.Name)
	if inc.Agent.PID != 0 {
		attrs = append(attrs, "pid", inc.Agent.PID)
	}
	if inc.Status == incident.Resolved {
		if inc.Report != nil {
			attrs = append(attrs, "root_cause", inc.Report.RootCause, "confidence", inc.Report.Confidence)
		}
		r.log.Info("incident resolved", attrs...)
		return
	}
	r.log.Warn("incident failed", append(attrs, "failure_reason", inc.FailureReason)...)
}

// recordMetrics records a finished triage.
func recordMetrics(m *metrics.Metrics, out watcher.Outcome) {
	status, errType := "failed", "no_incident"
	var size int64 = -1
	if inc := out.Incident; inc != nil {
		status, errType = string(inc.Agent.State), ""
		switch inc.Status {
		case incident.AgentFailed:
			errType = "invalid_report"
		case incident.Failed:
			errType = string(inc.Agent.State)
			if inc.FailureReason == incident.ReasonTimeout || inc.FailureReason == incident.ReasonCancelled {
				errType = inc.FailureReason
			}
		}
		if n, err := metrics.WorkspaceBytes(inc.Workspace); err == nil {
			size = n
		}
	}
	m.AgentFinished(out.Cluster, status, out.Took, size, errType)
	if inc := out.Incident; inc != nil && (inc.Effort != nil || inc.Claims != nil || inc.SecondOpinion != nil) {
		verified, unverified, agreement := 0, 0, ""
		if inc.Claims != nil {
			verified, unverified = inc.Claims.Verified, inc.Claims.Unverified
		}
		if inc.SecondOpinion != nil {
			agreement = string(inc.SecondOpinion.Agreement)
		}
		m.AgentChecked(out.Cluster, inc.Agent.Name, inc.Effort, verified, unverified, agreement)
	}
}
