package mongoerr

// Decimal128 arithmetic codes (issue #14), kept apart from locations.go so
// this work edits no shared list. A location code: no entry in names, so
// its codeName is "Location5733415".
const (
	ModDecimalByZero Code = 5733415 // location code: $mod of a decimal by zero
)

// RoundInvalidConversion: $round/$trunc of an integer at a negative place
// whose result leaves int64's range (codeName Location51080).
const RoundInvalidConversion Code = 51080
