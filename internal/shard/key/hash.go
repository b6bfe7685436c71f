package key

import "github.com/relaydb/relaydb/internal/bsonx/bsonhash"

// Hash returns MongoDB's hash of a value for hashed shard keys: the same
// function as hashed indexes use (bsonhash.Hash, seed 0), so a hashed
// shard key's chunk bounds and its hashed index agree.
func Hash(v any) (int64, error) { return bsonhash.Hash(v) }
