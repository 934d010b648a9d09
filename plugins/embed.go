// Package plugins embeds the agent definitions and the k8s-troubleshooter
// skill that are copied into incident workspaces.
package plugins

import "embed"

// Skills holds skills/<name>/… (SKILL.md, references/, scripts/).
//
//go:embed all:skills
var Skills embed.FS
