// Package allowlist decides which client addresses may connect: a list of
// IPv4/IPv6 addresses and CIDR blocks (relaydb's IP allowlist, issue #13),
// parsed with errors that name the bad entry, and a Matcher that publishes
// the current Policy atomically so the accept path takes no lock.
//
// Invariants:
//   - An empty List allows every address (no restriction, relaydb's default).
//   - A List is canonical: every entry is a masked netip.Prefix (a single
//     address is a /32 or /128), IPv4-mapped IPv6 entries are stored as
//     IPv4, entries are sorted and without duplicates; Parse refuses
//     anything else (host bits set, zones, empty entries) rather than guess.
//   - Addresses are compared unmapped: ::ffff:10.0.0.1 matches 10.0.0.1/32.
//   - A Policy is immutable once stored in a Matcher; Matcher.Store
//     replaces it whole, so a reader sees the old policy or the new one,
//     never a mix.
//   - With AlwaysAllowMembers, 127.0.0.1, ::1 and Policy.Members are allowed
//     whatever the List says (the list cannot cut a replica set's members
//     off each other, nor local administration off the node). Other
//     loopback addresses (127.0.0.2, ...) obey the List.
//   - Bounded: at most MaxEntries entries of at most maxEntryLen bytes;
//     refusal counts keep at most maxRefusedAddrs addresses.
package allowlist
