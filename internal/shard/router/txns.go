package router

import (
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// txnTable remembers the shard each open multi-document transaction runs
// on: its later statements and commitTransaction/abortTransaction go
// there, and a statement for another shard is refused (transactions over
// several shards need two-phase commit: TODO(#14)).
type txnTable struct {
	mu struct {
		sync.Mutex
		byTxn map[string]txnEntry
	}
}

type txnEntry struct {
	t       target
	started time.Time
}

// txnIdle bounds how long a transaction entry is kept (the shards abort a
// transaction after transactionLifetimeLimitSeconds, 60 s).
const txnIdle = 5 * time.Minute

func newTxnTable() *txnTable {
	tt := &txnTable{}
	tt.mu.byTxn = map[string]txnEntry{}
	return tt
}

// txnKey identifies (lsid, txnNumber) of a statement in a transaction, ""
// outside one.
func txnKey(cmd bson.D) string {
	if _, inTxn := bsonx.Get(cmd, "autocommit"); !inTxn {
		return ""
	}
	lsid, _ := bsonx.Get(cmd, "lsid")
	n, _ := bsonx.Get(cmd, "txnNumber")
	num, _ := bsonx.AsInt64(n)
	return fmt.Sprintf("%v/%d", lsid, num)
}

// check records the shard of a transaction's first statement and refuses
// a later statement for another shard.
func (tt *txnTable) check(cmd bson.D, id string) error {
	key := txnKey(cmd)
	if key == "" {
		return nil
	}
	_, starting := bsonx.Get(cmd, "startTransaction")
	tt.mu.Lock()
	defer tt.mu.Unlock()
	e, ok := tt.mu.byTxn[key]
	if !ok || starting {
		now := time.Now()
		for k, old := range tt.mu.byTxn {
			if now.Sub(old.started) > txnIdle {
				delete(tt.mu.byTxn, k)
			}
		}
		return nil
	}
	if e.t.id != id {
		return mongoerr.New(mongoerr.OperationNotSupportedInTransaction,
			"a transaction on the router may touch one shard for now: it runs on %s and this statement is for %s", e.t.id, id)
	}
	return nil
}

// record remembers t for the transaction of cmd.
func (tt *txnTable) record(cmd bson.D, t target) {
	if key := txnKey(cmd); key != "" {
		tt.mu.Lock()
		if _, ok := tt.mu.byTxn[key]; !ok {
			tt.mu.byTxn[key] = txnEntry{t: t, started: time.Now()}
		}
		tt.mu.Unlock()
	}
}

func (tt *txnTable) take(cmd bson.D) (target, bool) {
	key := txnKey(cmd)
	tt.mu.Lock()
	defer tt.mu.Unlock()
	e, ok := tt.mu.byTxn[key]
	delete(tt.mu.byTxn, key)
	return e.t, ok
}

// endTransaction sends commitTransaction/abortTransaction to the
// transaction's shard. A transaction that ran no statement commits
// trivially; aborting it is NoSuchTransaction, as on mongos.
func (r *Router) endTransaction(c *call) (bson.D, error) {
	t, ok := r.txns.take(c.cmd)
	if !ok {
		if c.name == "commitTransaction" {
			return bson.D{{Key: "ok", Value: 1.0}}, nil
		}
		return nil, mongoerr.New(mongoerr.NoSuchTransaction, "no transaction with this lsid and txnNumber is open on this router")
	}
	reply, err := t.set.Run(c.ctx, c.db, c.cmd, c.name == "commitTransaction")
	if reply == nil {
		return nil, err
	}
	return reply, nil
}
