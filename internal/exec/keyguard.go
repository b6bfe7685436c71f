package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// KeyChange describes a document an update is about to write, for a
// shard's check of its shard key (package shard/shardsvr): an update of
// Old into New, or an upsert inserting New (Old nil).
type KeyChange struct {
	DB, Coll  string
	Query     bson.D // the statement's filter
	Old, New  bson.D
	Multi     bool
	Upsert    bool // New is an upsert's inserted document
	Retryable bool // the statement runs in a retryable write
}

// KeyGuard is called before an update or upsert commits a document; an
// error refuses the write (the statement's error). It must not block on
// I/O: it runs under the document's lock stripe.
type KeyGuard func(KeyChange) error

// SetKeyGuard installs g (nil: none). Set before serving.
func (e *Engine) SetKeyGuard(g KeyGuard) { e.keyGuard = g }

func (e *Engine) guard(k KeyChange) error {
	if e.keyGuard == nil {
		return nil
	}
	return e.keyGuard(k)
}
