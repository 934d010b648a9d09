//go:build !unix

package workspace

const nofollow = 0
