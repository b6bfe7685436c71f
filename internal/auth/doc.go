// Package auth is relaydb's server side of SCRAM-SHA-1 and SCRAM-SHA-256
// authentication (RFC 5802 / RFC 7677) with MongoDB's credential format and
// defaults, built on github.com/xdg-go/scram (the library the Go driver
// uses on the client side).
//
// Invariants:
//   - Only salted SCRAM keys (salt, iterationCount, storedKey, serverKey) are
//     ever produced or stored; no plaintext password and no password digest
//     outlives NewCredentials.
//   - SCRAM-SHA-1 derives its keys from MongoDB's password digest
//     hex(md5("user:mongo:password")), unprepped, as MongoDB and every
//     driver do; SCRAM-SHA-256 derives them from the SASLprep'd password.
//   - Iteration counts are MongoDB's defaults (10000 for SHA-1, 15000 for
//     SHA-256); salts are random, 16 bytes for SHA-1 and 28 for SHA-256.
//   - Proof and key comparisons are the library's constant-time ones.
//   - A conversation for an unknown user runs to the proof step against a
//     decoy credential derived from a per-process secret, so a client cannot
//     tell from the first reply whether the user exists; it always fails.
//     (A user without credentials for the mechanism fails at once, as in
//     MongoDB, which saslSupportedMechs reveals anyway.)
//   - Every payload is bounded (MaxPayload); malformed input returns an
//     error (ErrProtocol or ErrAuthFailed), never a panic.
//   - Throttle slows repeated failures per address with bounded memory.
package auth
