//go:build invariants

package invariants

// Enabled is true: this build runs the invariant checks.
const Enabled = true
