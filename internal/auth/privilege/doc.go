// Package privilege holds MongoDB's built-in roles as privileges (a
// resource and a set of actions), user-defined roles as their documents
// state them (RoleDoc, Grant), the resolution of a user's roles to the
// privileges they grant, and the privileges each relaydb command needs
// for a given request (issue #13).
//
// Invariants: the package is pure (no I/O, no locks; user-defined roles
// come through a caller's Lookup); a resource with an empty collection
// names every collection of its database except the system.* ones, an
// empty database every database; only anyResource (root) covers system
// collections and the cluster at once. Resolution visits each role once
// and at most maxResolved roles, so a cyclic or huge stored role graph
// ends; an unknown role grants nothing. Action names relaydb accepts but
// does not check are kept in Grants (stored and shown) and grant no bit.
// A command with no entry in Commands is refused (Needs reports !ok), so
// a new command must be given its privileges before an authenticated
// client can run it.
package privilege
