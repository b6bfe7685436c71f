package shardsvr

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// A shard's rules for an update that changes a document's shard key
// (MongoDB 7.0's UpdateStage::checkUpdateChangesExistingShardKey and the
// upsert stage's ownership check), applied before the document is
// written:
//
//   - a new key equal to the old one (BSON-equal; a missing field set to
//     an explicit null counts as equal) is not a change;
//   - a multi update that changes a key is InvalidOptions (72);
//   - the statement's filter must pin the whole shard key with equalities
//     (Location31025): the router's two-phase write without shard key
//     adds them;
//   - the statement must be a retryable write (IllegalOperation 20);
//   - a new key this shard does not own is WouldChangeOwningShard (283)
//     with {preImage, postImage, shouldUpsert} and nothing is written:
//     the router moves the document (delete here, insert on the owner);
//   - an upsert inserting a document this shard does not own is the same
//     with shouldUpsert true and the filter as preImage.
//
// The check uses only the filtering metadata already cached (no I/O under
// the document's lock): a versioned request loaded it when its version was
// checked; a write that was not versioned (a direct connection) to a
// collection this shard never loaded is not checked.

// KeyGuard returns the check to install with exec.Engine.SetKeyGuard.
func (s *State) KeyGuard() exec.KeyGuard { return s.checkKeyChange }

func (s *State) checkKeyChange(k exec.KeyChange) error {
	if k.DB == "admin" || k.DB == "local" || k.DB == "config" {
		return nil
	}
	meta, shard := s.cachedMeta(k.DB + "." + k.Coll)
	if meta == nil || !meta.IsSharded() {
		return nil
	}
	return keyChangeRule(meta.Manager(), shard, k)
}

// cachedMeta returns ns's loaded metadata and this shard's name; nil when
// not loaded or before the shard identity is known.
func (s *State) cachedMeta(ns string) (*CollectionMetadata, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.mu.colls[ns]
	if s.mu.identity == nil || e == nil {
		return nil, ""
	}
	return e.meta, s.mu.identity.ShardName
}

// keyChangeRule applies the rules above for shard me.
func keyChangeRule(cm *routing.ChunkManager, me string, k exec.KeyChange) error {
	p := cm.Pattern()
	newKey, err := p.Extract(k.New)
	if err != nil {
		return err
	}
	if k.Upsert {
		return upsertRule(cm, me, k, newKey)
	}
	oldKey, err := p.Extract(k.Old)
	if err != nil || sameBSON(oldKey, newKey) {
		return nil // an old key with an array could not have been inserted
	}
	if k.Multi {
		return mongoerr.New(mongoerr.InvalidOptions, "Multi-update operations are not allowed when updating the shard key field.")
	}
	if _, full := routing.ShardKeyFromFilter(p, k.Query); !full {
		return mongoerr.New(mongoerr.ShardKeyUpdateWithoutFullKey,
			"Shard key update is not allowed without specifying the full shard key in the query")
	}
	if !k.Retryable {
		return mongoerr.New(mongoerr.IllegalOperation,
			"Must run update to shard key field in a multi-statement transaction or with retryWrites: true.")
	}
	if owner, err := cm.FindChunk(oldKey); err != nil || owner.Shard != me {
		return nil // an orphan: not this shard's to move
	}
	owner, err := cm.FindChunk(newKey)
	if err != nil {
		return err
	}
	if owner.Shard == me {
		return nil
	}
	return wouldChangeOwningShard("This update would cause the doc to change owning shards", k.Old, k.New, false)
}

func upsertRule(cm *routing.ChunkManager, me string, k exec.KeyChange, newKey bson.D) error {
	owner, err := cm.FindChunk(newKey)
	if err != nil {
		return err
	}
	if owner.Shard == me {
		return nil
	}
	if !k.Retryable {
		return mongoerr.New(mongoerr.IllegalOperation,
			"The upsert document could not be inserted onto the shard targeted by the query, since its shard key "+
				"belongs on a different shard. Cross-shard upserts are only allowed when running in a transaction or "+
				"with retryWrites: true.")
	}
	return wouldChangeOwningShard("The document we are inserting belongs on a different shard", k.Query, k.New, true)
}

// wouldChangeOwningShard is WouldChangeOwningShard (283) with MongoDB's
// WouldChangeOwningShardInfo.
func wouldChangeOwningShard(msg string, pre, post bson.D, upsert bool) *Error {
	info := bson.D{{Key: "preImage", Value: pre}, {Key: "postImage", Value: post}, {Key: "shouldUpsert", Value: upsert}}
	return &Error{err: mongoerr.New(mongoerr.WouldChangeOwningShard, "%s", msg), info: info}
}

func sameBSON(a, b bson.D) bool {
	x, errA := bson.Marshal(a)
	y, errB := bson.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
