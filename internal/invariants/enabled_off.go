//go:build !invariants

package invariants

// Enabled is false: the invariant checks are compiled away. Build or test
// with -tags invariants to run them.
const Enabled = false
