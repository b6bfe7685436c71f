//go:build !invariants

package iterx

const checkedBuild = false
