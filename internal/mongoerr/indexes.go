package mongoerr

// Index conversion codes (issue #14), kept apart from codes.go so this
// work edits no shared list; init adds their codeNames.
const (
	// CannotConvertIndexToUnique: collMod {index: {unique: true}} found
	// documents sharing a key (the error's violations list their _ids).
	CannotConvertIndexToUnique Code = 359
)

func init() {
	names[CannotConvertIndexToUnique] = "CannotConvertIndexToUnique"
}
