package network

import (
	"net"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// clientDefault is a client library that dials localhost when the
// variable that configures it is unset: its line, and that variable.
type clientDefault struct {
	re     *regexp.Regexp
	client string
	env    string
}

// clientDefaults are the documented env fallbacks of common clients:
// Celery reads CELERY_BROKER_URL for broker_url, whose default is
// amqp://guest@localhost:5672// (https://docs.celeryq.dev/en/stable/userguide/configuration.html#broker-url);
// redis-rb (Sidekiq) reads REDIS_URL, else redis://127.0.0.1:6379
// (https://github.com/redis/redis-rb#getting-started).
var clientDefaults = []clientDefault{
	{regexp.MustCompile(`consumer: Cannot connect to amqp://`), "Celery's broker_url", "CELERY_BROKER_URL"},
	{regexp.MustCompile(`Error connecting to Redis on `), "redis-rb", "REDIS_URL"},
}

// loopbackDefault says why a pod dials its own loopback when no env
// variable of the container names that address: the client's default,
// used because the variable that sets it is unset. env is that variable
// when the line is a known client's; ok is false when some variable
// configures the address (the configuration, not a default, is wrong).
func loopbackDefault(p *corev1.Pod, ctr, line, host, port string) (client, env string, ok bool) {
	for _, c := range p.Spec.Containers {
		if c.Name != ctr {
			continue
		}
		for _, e := range c.Env {
			v := strings.ToLower(e.Value)
			if strings.Contains(v, net.JoinHostPort(host, port)) || strings.Contains(v, "localhost:"+port) {
				return "", "", false
			}
		}
		for _, d := range clientDefaults {
			if !d.re.MatchString(line) {
				continue
			}
			for _, e := range c.Env {
				if e.Name == d.env {
					return "", "", false // set, yet loopback: a value from elsewhere (ConfigMap, Secret)
				}
			}
			return d.client, d.env, true
		}
		return "", "", len(c.EnvFrom) == 0
	}
	return "", "", false
}
