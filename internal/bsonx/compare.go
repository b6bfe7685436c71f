package bsonx

import (
	"bytes"
	"cmp"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Compare returns -1, 0 or +1 as a sorts before, equal to or after b in
// MongoDB's order (BSONElement::woCompare without field names at the top
// level): first by canonical type bracket, then by value.
//
// TODO(#2): MongoDB compares a decimal with a double after rounding the
// double to 34 decimal digits; Compare uses the double's exact value, so
// e.g. decimal 0.1000000000000000055511151231257827 sorts below double 0.1
// here but equals it in MongoDB. Exactness keeps Compare transitive and
// matches the keystring encoding.
func Compare(a, b any) int { return CompareColl(a, b, nil) }

// Collator orders strings under a collation (internal/collation); a nil
// Collator is the simple collation, byte-wise order.
type Collator interface {
	CompareString(a, b string) int
}

// CompareColl is Compare with strings (and symbols), at any depth inside
// arrays and documents, ordered by c; field names and every other type
// compare as in Compare (a collation changes string values only).
func CompareColl(a, b any, c Collator) int {
	ca, cb := CanonicalType(a), CanonicalType(b)
	if ca != cb {
		return cmp.Compare(ca, cb)
	}
	return compareSameBracket(ca, a, b, c)
}

// Equal reports whether Compare(a, b) == 0.
func Equal(a, b any) bool { return Compare(a, b) == 0 }

func compareSameBracket(canon int, a, b any, c Collator) int {
	switch canon {
	case CanonNumber:
		if da, ok := a.(bson.Decimal128); ok {
			if db, ok := b.(bson.Decimal128); ok {
				return compareDecimals(da, db)
			}
		}
		na, _ := SplitNumber(a)
		nb, _ := SplitNumber(b)
		return CompareNumbers(na, nb)
	case CanonString:
		if c != nil {
			return c.CompareString(stringValue(a), stringValue(b))
		}
		return strings.Compare(stringValue(a), stringValue(b))
	case CanonObject:
		return compareDocs(a.(bson.D), b.(bson.D), c)
	case CanonArray:
		return compareArrays(asArray(a), asArray(b), c)
	case CanonBinData:
		return compareBinary(a.(bson.Binary), b.(bson.Binary))
	case CanonObjectID:
		x, y := a.(bson.ObjectID), b.(bson.ObjectID)
		return bytes.Compare(x[:], y[:])
	case CanonBool:
		return cmpBool(a.(bool), b.(bool))
	case CanonDate:
		return cmp.Compare(int64(a.(bson.DateTime)), int64(b.(bson.DateTime)))
	case CanonTimestamp:
		return compareTimestamp(a.(bson.Timestamp), b.(bson.Timestamp))
	case CanonRegex:
		return compareRegex(a.(bson.Regex), b.(bson.Regex))
	case CanonDBPointer:
		return compareDBPointer(a.(bson.DBPointer), b.(bson.DBPointer))
	case CanonJavaScript:
		return strings.Compare(string(a.(bson.JavaScript)), string(b.(bson.JavaScript)))
	case CanonCodeWithScope:
		return compareCodeWithScope(a.(bson.CodeWithScope), b.(bson.CodeWithScope), c)
	}
	return 0 // MinKey, MaxKey, undefined, null: one value per bracket
}

func stringValue(v any) string {
	if s, ok := v.(bson.Symbol); ok {
		return string(s)
	}
	return v.(string)
}

func asArray(v any) bson.A {
	if a, ok := v.([]any); ok {
		return bson.A(a)
	}
	return v.(bson.A)
}

// CompareDocs orders documents element by element: by the element's type
// bracket, then field name (byte-wise), then value; a document that is a
// prefix of the other sorts first.
func CompareDocs(a, b bson.D) int { return compareDocs(a, b, nil) }

func compareDocs(a, b bson.D, coll Collator) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareElements(a[i], b[i], coll); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func compareElements(x, y bson.E, coll Collator) int {
	cx, cy := CanonicalType(x.Value), CanonicalType(y.Value)
	if cx != cy {
		return cmp.Compare(cx, cy)
	}
	if c := strings.Compare(x.Key, y.Key); c != 0 {
		return c
	}
	return compareSameBracket(cx, x.Value, y.Value, coll)
}

// Arrays compare like documents whose keys are "0", "1", ...: the keys of
// elements at the same position are equal, so only type and value matter.
func compareArrays(a, b bson.A, coll Collator) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := CompareColl(a[i], b[i], coll); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// BinData orders by length, then subtype, then bytes.
func compareBinary(a, b bson.Binary) int {
	if c := cmp.Compare(len(a.Data), len(b.Data)); c != 0 {
		return c
	}
	if c := cmp.Compare(int(a.Subtype), int(b.Subtype)); c != 0 {
		return c
	}
	return bytes.Compare(a.Data, b.Data)
}

// Timestamps order as the unsigned 64-bit value (T high, I low).
func compareTimestamp(a, b bson.Timestamp) int {
	if a.T != b.T {
		return cmp.Compare(uint64(a.T), uint64(b.T))
	}
	return cmp.Compare(uint64(a.I), uint64(b.I))
}

func compareRegex(a, b bson.Regex) int {
	if c := strings.Compare(a.Pattern, b.Pattern); c != 0 {
		return c
	}
	return strings.Compare(a.Options, b.Options)
}

// DBPointers order by namespace length, then namespace bytes, then id.
func compareDBPointer(a, b bson.DBPointer) int {
	if c := cmp.Compare(len(a.DB), len(b.DB)); c != 0 {
		return c
	}
	if c := strings.Compare(a.DB, b.DB); c != 0 {
		return c
	}
	return bytes.Compare(a.Pointer[:], b.Pointer[:])
}

func compareCodeWithScope(a, b bson.CodeWithScope, coll Collator) int {
	if c := strings.Compare(string(a.Code), string(b.Code)); c != 0 {
		return c
	}
	return compareDocs(scopeDoc(a.Scope), scopeDoc(b.Scope), coll)
}

// scopeDoc returns a code-with-scope's scope as a bson.D; the driver
// decodes it as bson.D, anything else is treated as an empty scope.
func scopeDoc(s any) bson.D {
	d, _ := s.(bson.D)
	return d
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}
