package bsonx

import (
	"cmp"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// compareDecimals orders two decimals without the binary expansion that
// SplitNumber needs, which is costly for large exponents.
func compareDecimals(a, b bson.Decimal128) int {
	ka, kb := decimalKind(a), decimalKind(b)
	if ka != kb || (ka != NumPos && ka != NumNeg) {
		return cmp.Compare(int(ka), int(kb))
	}
	_, ca, qa, _ := decimalParts(a)
	_, cb, qb, _ := decimalParts(b)
	da, ea := decimalDigits(ca, qa)
	db, eb := decimalDigits(cb, qb)
	c := cmp.Compare(int(ea), int(eb))
	if c == 0 {
		c = strings.Compare(da, db)
	}
	if ka == NumNeg {
		return -c
	}
	return c
}

// decimalKind classifies a decimal without splitting it.
func decimalKind(d bson.Decimal128) NumClass {
	if d.IsNaN() {
		return NumNaN
	}
	switch d.IsInf() {
	case 1:
		return NumPosInf
	case -1:
		return NumNegInf
	}
	neg, c, _, _ := decimalParts(d)
	switch {
	case c.Sign() == 0:
		return NumZero
	case neg:
		return NumNeg
	}
	return NumPos
}
