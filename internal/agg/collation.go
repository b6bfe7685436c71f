package agg

import "github.com/relaydb/relaydb/internal/bsonx"

// bsonCollator is env's collator as the matcher and sort take it: a nil
// interface for the simple collation.
func (env *Env) bsonCollator() bsonx.Collator {
	if env == nil || env.Collator == nil {
		return nil
	}
	return env.Collator
}
