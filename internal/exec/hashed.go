package exec

import (
	"github.com/relaydb/relaydb/internal/bsonx/bsonhash"
)

// hashValues maps equality values to their NumberLong hashes, the values a
// hashed index field stores. Equal values hash alike but distinct values
// may collide (3 and 3.5 both hash as 3), so a hashed scan only narrows
// the candidates: Find always re-applies the full filter to what it
// fetches (filterIter), which removes the collisions.
func hashValues(vals []any) []any {
	out := make([]any, 0, len(vals))
	for _, v := range vals {
		h, err := bsonhash.Hash(v)
		if err != nil {
			continue // not a BSON value: no document can hold it
		}
		out = append(out, h)
	}
	return out
}
