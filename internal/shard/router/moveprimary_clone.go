package router

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// The copy of movePrimary: one batch of documents in memory at a time
// (at most cloneBatchDocs documents, and a shard caps a batch at 16 MB).

// cloneBatchDocs is the find/getMore batch size of the copy.
const cloneBatchDocs = 1000

// maxCursorBatches bounds one cursor's getMores (1000 documents each:
// 10^9 documents), so a misbehaving donor cannot loop the copy forever.
const maxCursorBatches = 1_000_000

// collSpec is one listCollections entry of the donor.
type collSpec struct {
	name    string
	view    bool
	options bson.D
}

// clone copies every unsharded collection of the database and returns
// the names created on the recipient (dropped again if the move fails).
func (m *primaryMove) clone() ([]string, error) {
	host, err := m.donor.primary(m.ctx)
	if err != nil {
		return nil, err
	}
	specs, err := m.toMove(host)
	if err != nil {
		return nil, err
	}
	if err := m.checkRecipient(specs); err != nil {
		return nil, err
	}
	var moved []string
	for _, s := range specs {
		moved = append(moved, s.name)
		if err := m.cloneOne(host, s); err != nil {
			return moved, fmt.Errorf("movePrimary %s: copying %s to %s: %w", m.db.Name, s.name, m.to, err)
		}
	}
	return moved, nil
}

// toMove lists the donor's collections and views of the database that
// are not sharded (system collections are not copied: views are made
// again by create).
func (m *primaryMove) toMove(host string) ([]collSpec, error) {
	sharded, err := m.r.meta.ShardedCollections(m.ctx, m.db.Name)
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, c := range sharded {
		skip[strings.TrimPrefix(c.NS, m.db.Name+".")] = true
	}
	var out []collSpec
	err = m.each(host, bson.D{{Key: "listCollections", Value: int32(1)}}, "$cmd.listCollections", func(d bson.D) error {
		name, _ := bsonx.Get(d, "name")
		typ, _ := bsonx.Get(d, "type")
		opts, _ := bsonx.Get(d, "options")
		s := collSpec{view: typ == "view"}
		s.name, _ = name.(string)
		s.options, _ = opts.(bson.D)
		if s.name != "" && !skip[s.name] && !strings.HasPrefix(s.name, "system.") {
			out = append(out, s)
		}
		return nil
	})
	return out, err
}

// checkRecipient refuses a move onto a shard that already holds one of
// the collections (left there by hand or by an earlier failed move).
func (m *primaryMove) checkRecipient(specs []collSpec) error {
	reply, err := m.recipient.Run(m.ctx, m.db.Name, bson.D{{Key: "listCollections", Value: int32(1)}, {Key: "nameOnly", Value: true}}, true)
	if err != nil {
		return err
	}
	batch, _, err := firstBatchOf(reply)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, d := range batch {
		n, _ := bsonx.Get(d, "name")
		s, _ := n.(string)
		have[s] = true
	}
	for _, s := range specs {
		if have[s.name] {
			return mongoerr.New(mongoerr.NamespaceExists,
				"movePrimary %s: collection %s already exists on the recipient shard %s", m.db.Name, s.name, m.to)
		}
	}
	return nil
}

// cloneOne makes s on the recipient with its options and indexes, then
// copies its documents.
func (m *primaryMove) cloneOne(host string, s collSpec) error {
	create := append(bson.D{{Key: "create", Value: s.name}}, s.options...)
	if err := m.write(append(create, bson.E{Key: "writeConcern", Value: m.wc})); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	if s.view {
		return nil
	}
	if err := m.cloneIndexes(host, s.name); err != nil {
		return fmt.Errorf("indexes: %w", err)
	}
	find := bson.D{{Key: "find", Value: s.name}, {Key: "batchSize", Value: int32(cloneBatchDocs)}}
	return m.eachBatch(host, find, s.name, func(docs bson.A) error {
		if err := m.renew(); err != nil {
			return err
		}
		return m.write(bson.D{{Key: "insert", Value: s.name}, {Key: "documents", Value: docs},
			{Key: "ordered", Value: true}, {Key: "bypassDocumentValidation", Value: true}, {Key: "writeConcern", Value: m.wc}})
	})
}

// cloneIndexes creates the donor's indexes of coll (but _id's) on the
// recipient.
func (m *primaryMove) cloneIndexes(host, coll string) error {
	var specs bson.A
	err := m.each(host, bson.D{{Key: "listIndexes", Value: coll}}, coll, func(d bson.D) error {
		if name, _ := bsonx.Get(d, "name"); name != "_id_" {
			specs = append(specs, withoutField(d, "ns"))
		}
		return nil
	})
	if err != nil || len(specs) == 0 {
		return err
	}
	return m.write(bson.D{{Key: "createIndexes", Value: coll}, {Key: "indexes", Value: specs}, {Key: "writeConcern", Value: m.wc}})
}

// write runs a write on the recipient's primary; a write error or a
// write concern error fails it.
func (m *primaryMove) write(cmd bson.D) error {
	reply, err := m.recipient.Run(m.ctx, m.db.Name, cmd, false)
	if err != nil {
		return err
	}
	return configsvr.WriteError(reply)
}

// each runs a cursor command on the donor's host and calls fn for every
// document.
func (m *primaryMove) each(host string, cmd bson.D, coll string, fn func(bson.D) error) error {
	return m.eachBatch(host, cmd, coll, func(docs bson.A) error {
		for _, v := range docs {
			d, _ := v.(bson.D)
			if err := fn(d); err != nil {
				return err
			}
		}
		return nil
	})
}

// eachBatch runs a cursor command on host (getMores go to the same host)
// and calls fn for every non-empty batch.
func (m *primaryMove) eachBatch(host string, cmd bson.D, coll string, fn func(bson.A) error) error {
	reply, err := m.r.pool.Run(m.ctx, host, m.db.Name, cmd)
	for range maxCursorBatches {
		if err != nil {
			return err
		}
		batch, id := cursorDocs(reply)
		if len(batch) > 0 {
			if err := fn(batch); err != nil {
				m.killCursor(host, coll, id)
				return err
			}
		}
		if id == 0 {
			return nil
		}
		reply, err = m.r.pool.Run(m.ctx, host, m.db.Name, bson.D{{Key: "getMore", Value: id},
			{Key: "collection", Value: coll}, {Key: "batchSize", Value: int32(cloneBatchDocs)}})
	}
	return mongoerr.New(mongoerr.InternalError, "movePrimary: the cursor on %s.%s did not end", m.db.Name, coll)
}

func (m *primaryMove) killCursor(host, coll string, id int64) {
	if id != 0 {
		_, _ = m.r.pool.Run(m.ctx, host, m.db.Name, bson.D{{Key: "killCursors", Value: coll}, {Key: "cursors", Value: bson.A{id}}})
	}
}

// cursorDocs returns a cursor reply's batch and cursor id.
func cursorDocs(reply bson.D) (bson.A, int64) {
	cur, _ := bsonx.Get(reply, "cursor")
	cd, _ := cur.(bson.D)
	idv, _ := bsonx.Get(cd, "id")
	id, _ := bsonx.AsInt64(idv)
	b, ok := bsonx.Get(cd, "firstBatch")
	if !ok {
		b, _ = bsonx.Get(cd, "nextBatch")
	}
	arr, _ := b.(bson.A)
	return arr, id
}
