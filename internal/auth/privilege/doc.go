// Package privilege holds MongoDB's built-in roles as privileges (a
// resource and a set of actions) and the privileges each relaydb command
// needs for a given request (issue #13, second increment).
//
// Invariants: the package is pure (no I/O, no locks); a resource with an
// empty collection names every collection of its database except the
// system.* ones, an empty database every database; only anyResource
// (root) covers system collections and the cluster at once. A command with
// no entry in Commands is refused (Needs reports !ok), so a new command
// must be given its privileges before an authenticated client can run it.
package privilege
