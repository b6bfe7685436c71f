package key

import (
	"cmp"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Compare orders two shard keys as MongoDB orders chunk bounds (the
// KeyString of the key's values): value by value in BSON order
// (bsonx.Compare), ignoring field names; a key that is a prefix of the
// other sorts first. It returns -1, 0 or +1.
func Compare(a, b bson.D) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := bsonx.Compare(a[i].Value, b[i].Value); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// Less reports whether Compare(a, b) < 0.
func Less(a, b bson.D) bool { return Compare(a, b) < 0 }
