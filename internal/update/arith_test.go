package update

import (
	"testing"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestArithmetic(t *testing.T) {
	runApplyCases(t, []applyCase{
		{name: "inc int32", doc: `{"_id": 1, "a": 5}`, update: `{"$inc": {"a": 1}}`, want: `{"_id": 1, "a": 6}`},
		{name: "inc missing creates", doc: `{"_id": 1}`, update: `{"$inc": {"a.b": 2}}`, want: `{"_id": 1, "a": {"b": 2}}`},
		{name: "inc zero noop", doc: `{"_id": 1, "a": 5}`, update: `{"$inc": {"a": 0}}`, want: `{"_id": 1, "a": 5}`, noop: true},
		{name: "inc int32 overflow widens", doc: `{"_id": 1, "a": 2147483647}`, update: `{"$inc": {"a": 1}}`,
			want: `{"_id": 1, "a": {"$numberLong": "2147483648"}}`},
		{name: "inc int64", doc: `{"_id": 1, "a": {"$numberLong": "5"}}`, update: `{"$inc": {"a": 1}}`,
			want: `{"_id": 1, "a": {"$numberLong": "6"}}`},
		{name: "inc int64 overflow errors", doc: `{"_id": 1, "a": {"$numberLong": "9223372036854775807"}}`, update: `{"$inc": {"a": 1}}`,
			code: mongoerr.BadValue, msg: "Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) for document {_id: 1}"},
		{name: "inc double", doc: `{"_id": 1, "a": 5}`, update: `{"$inc": {"a": 0.5}}`, want: `{"_id": 1, "a": 5.5}`},
		{name: "inc double by zero int is noop", doc: `{"_id": 1, "a": 5.5}`, update: `{"$inc": {"a": 0}}`, want: `{"_id": 1, "a": 5.5}`, noop: true},
		{name: "inc non-numeric field", doc: `{"_id": 1, "a": "x"}`, update: `{"$inc": {"a": 1}}`, code: mongoerr.TypeMismatch,
			msg: "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'a' of non-numeric type string"},
		{name: "inc array elements via $[]", doc: `{"_id": 1, "a": [1, 2]}`, update: `{"$inc": {"a.$[]": 10}}`, want: `{"_id": 1, "a": [11, 12]}`},
		{name: "mul", doc: `{"_id": 1, "a": 5}`, update: `{"$mul": {"a": 3}}`, want: `{"_id": 1, "a": 15}`},
		{name: "mul missing int", doc: `{"_id": 1}`, update: `{"$mul": {"a": 3}}`, want: `{"_id": 1, "a": 0}`},
		{name: "mul missing long", doc: `{"_id": 1}`, update: `{"$mul": {"a": {"$numberLong": "3"}}}`, want: `{"_id": 1, "a": {"$numberLong": "0"}}`},
		{name: "mul missing double", doc: `{"_id": 1}`, update: `{"$mul": {"a": 2.5}}`, want: `{"_id": 1, "a": 0.0}`},
		{name: "mul int32 overflow widens", doc: `{"_id": 1, "a": 65536}`, update: `{"$mul": {"a": 65536}}`,
			want: `{"_id": 1, "a": {"$numberLong": "4294967296"}}`},
		{name: "mul int64 overflow", doc: `{"_id": 1, "a": {"$numberLong": "4611686018427387904"}}`, update: `{"$mul": {"a": 4}}`,
			code: mongoerr.BadValue},
		{name: "mul by one noop", doc: `{"_id": 1, "a": 7}`, update: `{"$mul": {"a": 1}}`, want: `{"_id": 1, "a": 7}`, noop: true},
		{name: "mul mixed double", doc: `{"_id": 1, "a": 2}`, update: `{"$mul": {"a": 1.5}}`, want: `{"_id": 1, "a": 3.0}`},
		{name: "min lowers", doc: `{"_id": 1, "a": 5}`, update: `{"$min": {"a": 3}}`, want: `{"_id": 1, "a": 3}`},
		{name: "min keeps", doc: `{"_id": 1, "a": 5}`, update: `{"$min": {"a": 7}}`, want: `{"_id": 1, "a": 5}`, noop: true},
		{name: "min equal other type keeps", doc: `{"_id": 1, "a": 5}`, update: `{"$min": {"a": 5.0}}`, want: `{"_id": 1, "a": 5}`, noop: true},
		{name: "min across types", doc: `{"_id": 1, "a": "x"}`, update: `{"$min": {"a": 1}}`, want: `{"_id": 1, "a": 1}`},
		{name: "min missing sets", doc: `{"_id": 1}`, update: `{"$min": {"a": 1}}`, want: `{"_id": 1, "a": 1}`},
		{name: "max raises", doc: `{"_id": 1, "a": 5}`, update: `{"$max": {"a": 9}}`, want: `{"_id": 1, "a": 9}`},
		{name: "max keeps", doc: `{"_id": 1, "a": 5}`, update: `{"$max": {"a": 1}}`, want: `{"_id": 1, "a": 5}`, noop: true},
		{name: "bit and", doc: `{"_id": 1, "a": 13}`, update: `{"$bit": {"a": {"and": 10}}}`, want: `{"_id": 1, "a": 8}`},
		{name: "bit or", doc: `{"_id": 1, "a": 13}`, update: `{"$bit": {"a": {"or": 2}}}`, want: `{"_id": 1, "a": 15}`},
		{name: "bit xor long", doc: `{"_id": 1, "a": 13}`, update: `{"$bit": {"a": {"xor": {"$numberLong": "1"}}}}`,
			want: `{"_id": 1, "a": {"$numberLong": "12"}}`},
		{name: "bit missing", doc: `{"_id": 1}`, update: `{"$bit": {"a": {"or": 5}}}`, want: `{"_id": 1, "a": 5}`},
		{name: "bit noop", doc: `{"_id": 1, "a": 5}`, update: `{"$bit": {"a": {"or": 1}}}`, want: `{"_id": 1, "a": 5}`, noop: true},
		{name: "bit on double", doc: `{"_id": 1, "a": 1.5}`, update: `{"$bit": {"a": {"or": 1}}}`, code: mongoerr.BadValue,
			msg: "Cannot apply $bit to a value of non-integral type._id: 1 has the field a of non-integer type double"},
		{name: "currentDate", doc: `{"_id": 1}`, update: `{"$currentDate": {"a": true, "b": {"$type": "date"}}}`,
			want: `{"_id": 1, "a": {"$date": "2024-01-02T03:04:05Z"}, "b": {"$date": "2024-01-02T03:04:05Z"}}`},
		{name: "currentDate timestamp", doc: `{"_id": 1}`, update: `{"$currentDate": {"a": {"$type": "timestamp"}}}`,
			want: `{"_id": 1, "a": {"$timestamp": {"t": 1704164645, "i": 1}}}`},
	})
}
