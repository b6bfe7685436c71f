package expr

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/decimal"
)

// toDecimal converts to decimal as $toDecimal / $convert do: integers,
// dates (milliseconds) and bools exactly, doubles to 15 significant digits
// (MongoDB's Decimal128(double): 1.9 becomes 1.90000000000000), strings
// parsed as decimals (rounded to 34 digits; no surrounding spaces).
func toDecimal(v any) (any, error) {
	switch t := v.(type) {
	case bson.Decimal128:
		return t, nil
	case bool:
		return decimal.FromInt64(int64(b2f(t))), nil
	case bson.DateTime:
		return decimal.FromInt64(int64(t)), nil
	case string:
		d, ok := decimal.Parse(t)
		if !ok {
			return nil, convFail("Failed to parse number '%s'", t)
		}
		return d, nil
	}
	if n, ok := toNumber(v); ok {
		return n.dec(), nil
	}
	return nil, unsupported(v, "decimal")
}
