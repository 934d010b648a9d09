package store

import (
	"context"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// Recent returns the incidents created at or after since, newest first: a
// new watch leader reads them to tell the faults an earlier leader handled
// from the ones it must still triage (leader.History). Entries that are
// not valid incidents are left out, as List leaves them.
func (s *Store) Recent(ctx context.Context, since time.Time) ([]incident.Incident, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entries, _, err := s.List()
	if err != nil {
		return nil, err
	}
	var out []incident.Incident
	for _, e := range entries {
		if !e.Incident.CreatedAt.Before(since) {
			out = append(out, *e.Incident)
		}
	}
	return out, nil
}
