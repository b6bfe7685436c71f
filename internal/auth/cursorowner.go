package auth

import "slices"

// Cursor ownership (MongoDB's "coauthorization"): under --auth a cursor
// remembers the users authenticated on the connection that opened it, and
// only a connection sharing one of them may continue it (getMore) or kill
// it (killCursors). Users are named "db.user" (MongoDB's user id).

// UserKey names user@db as a cursor owner.
func UserKey(db, user string) string { return db + "." + user }

// SortedOwners returns keys sorted and deduplicated (the form a cursor
// keeps).
func SortedOwners(keys []string) []string {
	out := slices.Clone(keys)
	slices.Sort(out)
	return slices.Compact(out)
}

// Coauthorized reports whether a connection whose users are users may use
// a cursor opened by owners: both without users, or one user in common.
func Coauthorized(owners, users []string) bool {
	if len(owners) == 0 && len(users) == 0 {
		return true
	}
	for _, u := range users {
		if slices.Contains(owners, u) {
			return true
		}
	}
	return false
}
