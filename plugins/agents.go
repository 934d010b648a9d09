package plugins

import "embed"

// Agents holds agents/<name>.yaml: one definition per external agent CLI.
//
//go:embed agents/*.yaml
var Agents embed.FS
