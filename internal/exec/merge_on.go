package exec

// $merge's 'on' (MongoDB's fieldsHaveSupportingUniqueIndex): the fields
// must be those of a unique, non-partial index of the target, in any
// order; the _id index is unique, and a target that does not exist yet
// accepts only on: "_id" (it will have that index). Otherwise the
// aggregate fails with 51183 before writing anything.

// mergeOnUnique reports whether on identifies at most one document of
// db.coll.
func (e *Engine) mergeOnUnique(db, coll string, on []string) bool {
	return IsIDOnly(on) || e.hasUniqueIndexOn(db, coll, on)
}

// IsIDOnly reports on: ["_id"].
func IsIDOnly(on []string) bool { return len(on) == 1 && on[0] == "_id" }
