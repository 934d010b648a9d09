package logs

import (
	"regexp"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// What the configuration asks for that the node or the image does not
// give: the node's inotify limits, a plugin the image does not ship.
const (
	// WatchLimit: a file watcher could not be created or extended because
	// the node's inotify limits (per user, shared by every container of
	// that UID on the node) are used up; not the process's ulimit.
	WatchLimit Class = "WatchLimit"
	// MissingPlugin: the configuration names a plugin, module or
	// extension the image does not ship.
	MissingPlugin Class = "MissingPlugin"
)

var _ = register(Def{
	Class: WatchLimit,
	Patterns: []Pattern{{
		Explains: "the program cannot create a file watcher: the node's inotify limit is used up (EMFILE from inotify_init at fs.inotify.max_user_instances, 128 by default, or ENOSPC at fs.inotify.max_user_watches), a limit per user shared by every container of that UID on the node, not the process's open-file ulimit",
		Fix:      "Raise the node's inotify limits: sysctl -w fs.inotify.max_user_instances=512 and fs.inotify.max_user_watches=524288 (persisted in /etc/sysctl.d/, or a privileged DaemonSet that sets them on every node); they are not namespaced sysctls, so the pod's securityContext cannot set them. Raising the container's ulimit does not help.", Priority: 88}},
	Rank:    1, // a line of both is a Forbidden
	Signals: []applog.Signal{applog.SigWatchLimit},
	Subject: func(string) string { return "fs.inotify.max_user_instances / max_user_watches" },
})

// The plugin a configuration asks for and the image lacks, in each
// program's own words: fluentd's Fluent::Registry ("Unknown output plugin
// 'elasticsearch'. Run 'gem search -rd fluent-plugin' to find plugins",
// https://github.com/fluent/fluentd/blob/master/lib/fluent/registry.rb),
// fluent-bit's "section 'x' tried to instance a plugin name that doesn't
// exist" (https://github.com/fluent/fluent-bit/blob/master/src/flb_config.c),
// Logstash's "Couldn't find any output plugin named 'x'"
// (https://github.com/elastic/logstash/blob/main/logstash-core/lib/logstash/plugins/registry.rb),
// PostgreSQL's extension.c "could not open extension control file" (the
// extension is not installed in the image) and Elasticsearch's "missing
// mandatory plugins [x]" (plugin.mandatory).
var pluginRe = regexp.MustCompile(`Unknown (?P<kind>[\w ]+?) plugin '(?P<name>[^']+)'|section '(?P<name>[^']+)' tried to instance a plugin name that doesn't exist|Couldn't find any (?P<kind>\w+) plugin named '(?P<name>[^']+)'|could not open extension control file "[^"]*/(?P<name>[^"/]+)\.control"|[Mm]issing mandatory plugins \[(?P<name>[^\]]+)\]`)

var _ = register(Def{
	Class: MissingPlugin,
	Patterns: []Pattern{{re: pluginRe,
		Explains: "the configuration uses a plugin (or module, extension) that the container's image does not ship",
		Fix:      "Run an image that ships the plugin (the project's variant image that bundles it, or one built FROM this image with the plugin installed: fluentd `gem install fluent-plugin-<name>`, Logstash `bin/logstash-plugin install`, Elasticsearch `bin/elasticsearch-plugin install`, PostgreSQL the extension's package), or remove the plugin from the configuration.", Priority: 86}},
	NamesImage: true,
	Rank:       3, // above MissingFile: "could not open extension control file …: No such file or directory" is the extension
	Subject: func(line string) string {
		if m, ok := submatch.Find(pluginRe, line); ok {
			return "plugin " + m.Get("name") // each alternative's own group of that name
		}
		return ""
	},
})
