package sim

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
)

var bsonZero bson.Timestamp

// source serves a member's catalog in-process as a sync source for
// rollback.Run: find on local.oplog.rs (an optional {ts: {$lte: T}}
// filter, newest first, limit, batchSize) with getMore and killCursors,
// and find by {_id: {$eq: v}} on user collections. Anything else is an
// error, so a new need of the rollback path shows up here.
type source struct {
	cat     *catalog.Catalog
	cursors map[int64]bson.A
	nextID  int64
}

func (s *source) Run(_ context.Context, db string, cmd bson.D) (bson.D, error) {
	if len(cmd) == 0 {
		return nil, fmt.Errorf("sim source: empty command")
	}
	switch cmd[0].Key {
	case "find":
		coll, _ := cmd[0].Value.(string)
		if db == catalog.LocalDB && coll == "oplog.rs" {
			return s.findOplog(cmd)
		}
		return s.findByID(db, coll, cmd)
	case "getMore":
		id, _ := cmd[0].Value.(int64)
		docs, ok := s.cursors[id]
		if !ok {
			return nil, fmt.Errorf("sim source: cursor %d not found", id)
		}
		return s.batch(id, docs, intArg(cmd, "batchSize"), "nextBatch"), nil
	case "killCursors":
		for _, v := range argArray(cmd, "cursors") {
			id, _ := v.(int64)
			delete(s.cursors, id)
		}
		return bson.D{{Key: "ok", Value: 1.0}}, nil
	}
	return nil, fmt.Errorf("sim source: unsupported command %q", cmd[0].Key)
}

func intArg(cmd bson.D, key string) int {
	v, _ := bsonx.Get(cmd, key)
	n, _ := bsonx.AsInt64(v)
	return int(n)
}

func argArray(cmd bson.D, key string) bson.A {
	v, _ := bsonx.Get(cmd, key)
	a, _ := v.(bson.A)
	return a
}

func argDoc(cmd bson.D, key string) bson.D {
	v, _ := bsonx.Get(cmd, key)
	d, _ := v.(bson.D)
	return d
}

// findOplog answers find on the oplog, newest first (the only order the
// rollback path asks for: sort {$natural: -1}).
func (s *source) findOplog(cmd bson.D) (bson.D, error) {
	if sort := argDoc(cmd, "sort"); len(sort) != 1 || sort[0].Key != "$natural" || intArg(sort, "$natural") != -1 {
		return nil, fmt.Errorf("sim source: oplog find needs sort {$natural: -1}, got %v", sort)
	}
	raws, err := s.cat.Oplog().ReadReverse(bsonZero, 0)
	if err != nil {
		return nil, err
	}
	lte, bounded := bsonx.GetPath(argDoc(cmd, "filter"), "ts.$lte")
	limit := intArg(cmd, "limit")
	var docs bson.A
	for _, raw := range raws {
		doc, err := bsonx.Decode(raw)
		if err != nil {
			return nil, err
		}
		ts, _ := bsonx.Get(doc, "ts")
		if bounded && ts.(bson.Timestamp).After(lte.(bson.Timestamp)) {
			continue
		}
		if docs = append(docs, doc); limit > 0 && len(docs) == limit {
			break
		}
	}
	s.nextID++
	return s.batch(s.nextID, docs, intArg(cmd, "batchSize"), "firstBatch"), nil
}

// batch returns up to n of docs as a cursor reply and keeps the rest
// under id (0 when none is left).
func (s *source) batch(id int64, docs bson.A, n int, field string) bson.D {
	if n <= 0 || n > len(docs) {
		n = len(docs)
	}
	if s.cursors == nil {
		s.cursors = map[int64]bson.A{}
	}
	if rest := docs[n:]; len(rest) > 0 {
		s.cursors[id] = rest
	} else {
		delete(s.cursors, id)
		id = 0
	}
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: id}, {Key: "ns", Value: "sim"},
		{Key: field, Value: docs[:n]}}}, {Key: "ok", Value: 1.0}}
}

// findByID answers the rollback's refetch of one document.
func (s *source) findByID(db, name string, cmd bson.D) (bson.D, error) {
	id, ok := bsonx.GetPath(argDoc(cmd, "filter"), "_id.$eq")
	if !ok {
		return nil, fmt.Errorf("sim source: find %s.%s: unsupported filter %v", db, name, argDoc(cmd, "filter"))
	}
	var docs bson.A
	doc, found, err := s.cat.DocByID(db, name, id)
	if err != nil {
		return nil, err
	}
	if found {
		docs = append(docs, doc)
	}
	return s.batch(0, docs, 0, "firstBatch"), nil
}
