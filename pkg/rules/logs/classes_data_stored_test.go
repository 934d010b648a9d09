package logs

import (
	"strings"
	"testing"
)

// TestStoredState: a configured identity against the one stored with the
// data is read as such, with both values, ahead of the unexpanded "$(DC)"
// a MissingEnv reading would take.
func TestStoredState(t *testing.T) {
	for _, tt := range []struct {
		name, log, subject string
	}{
		// https://github.com/docker-library/cassandra/issues/57
		{"cassandra data center", "ERROR 09:40:25 Fatal exception during initialization\norg.apache.cassandra.exceptions.ConfigurationException: Cannot start node if snitch's data center (MYDC) differs from previous data center ($(DC)). Please fix the snitch configuration, decommission and rebootstrap this node or use the flag -Dcassandra.ignore_dc=true.\n",
			"configured MYDC, stored with the data $(DC)"},
		// Kafka's KafkaServer: InconsistentClusterIdException.
		{"kafka cluster id", "[2021-03-01 10:00:00,123] ERROR Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)\nkafka.common.InconsistentClusterIdException: The Cluster ID Ab3dE6fGh9IjKlMn0pQrSt doesn't match stored clusterId Some(Zy8xW7vU6tS5rQ4pO3nM2l) in meta.properties. The broker is trying to join the wrong cluster. Configured zookeeper.connect may be wrong.\n",
			"configured Ab3dE6fGh9IjKlMn0pQrSt, stored with the data Zy8xW7vU6tS5rQ4pO3nM2l"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := FindDecisive(tt.log)
			if d == nil || d.Pattern.Class != StoredState {
				t.Fatalf("decisive %+v, want StoredState", d)
			}
			if !strings.Contains(d.Subject, tt.subject) {
				t.Errorf("subject %q, want %q", d.Subject, tt.subject)
			}
		})
	}
}
