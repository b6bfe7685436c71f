package repl

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// Collections of the local database holding replication state (MongoDB's
// names). Writes to local are never replicated.
const (
	configColl    = "system.replset"
	electionColl  = "replset.election"
	electionDocID = "election"
)

// loadConfig returns the persisted config, if any.
func loadConfig(cat *catalog.Catalog) (topology.Config, bool, error) {
	coll := cat.Collection(catalog.LocalDB, configColl)
	if coll == nil {
		return topology.Config{}, false, nil
	}
	it := coll.Scan(false)
	defer it.Close()
	raw, ok := it.Next()
	if !ok {
		return topology.Config{}, false, it.Err()
	}
	doc, err := bsonx.Decode(raw)
	if err != nil {
		return topology.Config{}, false, fmt.Errorf("repl: decode local.%s: %w", configColl, err)
	}
	cfg, err := parseConfig(doc)
	if err != nil {
		return topology.Config{}, false, fmt.Errorf("repl: parse local.%s: %w", configColl, err)
	}
	return cfg, true, nil
}

// storeConfig replaces the persisted config durably.
func storeConfig(ctx context.Context, cat *catalog.Catalog, cfg topology.Config) error {
	coll, err := cat.EnsureLocalCollection(configColl)
	if err != nil {
		return fmt.Errorf("repl: store config: %w", err)
	}
	var old bson.D
	it := coll.Scan(false)
	raw, ok := it.Next()
	if ok {
		old, err = bsonx.Decode(raw)
	}
	it.Close()
	if err != nil {
		return fmt.Errorf("repl: store config: %w", err)
	}
	if old != nil {
		if _, err := cat.Delete(coll, old); err != nil {
			return fmt.Errorf("repl: store config: %w", err)
		}
	}
	r, err := cat.Insert(coll, configDoc(cfg))
	if err != nil {
		return fmt.Errorf("repl: store config: %w", err)
	}
	return cat.WaitDurable(ctx, r)
}

// loadVote returns the last vote (local.replset.election).
func loadVote(cat *catalog.Catalog) (topology.PersistVote, error) {
	coll := cat.Collection(catalog.LocalDB, electionColl)
	if coll == nil {
		return topology.PersistVote{}, nil
	}
	raw, ok, err := coll.FindByID(electionDocID)
	if err != nil || !ok {
		return topology.PersistVote{}, err
	}
	doc, err := bsonx.Decode(raw)
	if err != nil {
		return topology.PersistVote{}, fmt.Errorf("repl: decode last vote: %w", err)
	}
	term, _ := bsonx.Get(doc, "term")
	cand, _ := bsonx.Get(doc, "candidateId")
	return topology.PersistVote{Term: asInt(term), Candidate: int(asInt(cand))}, nil
}

// storeVote persists v durably before the caller answers the vote request.
func storeVote(ctx context.Context, cat *catalog.Catalog, v topology.PersistVote, candidateIndex int) error {
	coll, err := cat.EnsureLocalCollection(electionColl)
	if err != nil {
		return fmt.Errorf("repl: store vote: %w", err)
	}
	doc := bson.D{{Key: "_id", Value: electionDocID}, {Key: "term", Value: v.Term},
		{Key: "candidateIndex", Value: int64(candidateIndex)}, {Key: "candidateId", Value: int64(v.Candidate)}}
	raw, ok, err := coll.FindByID(electionDocID)
	if err != nil {
		return fmt.Errorf("repl: store vote: %w", err)
	}
	var r catalog.WriteResult
	if ok {
		old, derr := bsonx.Decode(raw)
		if derr != nil {
			return fmt.Errorf("repl: store vote: %w", derr)
		}
		r, err = cat.Update(coll, old, doc, doc)
	} else {
		r, err = cat.Insert(coll, doc)
	}
	if err != nil {
		return fmt.Errorf("repl: store vote: %w", err)
	}
	return cat.WaitDurable(ctx, r)
}

// lastApplied returns the OpTime of the newest oplog entry.
func lastApplied(cat *catalog.Catalog) (topology.OpTime, error) {
	ts, term := cat.Oplog().Top()
	return topology.OpTime{TS: ts, Term: term}, nil
}

// opTimeAt returns the OpTime of the oplog entry at ts.
func opTimeAt(cat *catalog.Catalog, ts bson.Timestamp) (topology.OpTime, error) {
	raws, err := cat.Oplog().ReadRaw(ts, true, 1)
	if err != nil {
		return topology.OpTime{}, fmt.Errorf("repl: read oplog at %v: %w", ts, err)
	}
	if len(raws) == 0 {
		return topology.OpTime{TS: ts}, nil
	}
	// Only ts and t are needed: look them up rather than decode the entry
	// (this runs once per write on the primary).
	e := bson.Raw(raws[0])
	t, i, ok := e.Lookup("ts").TimestampOK()
	if !ok {
		return topology.OpTime{}, fmt.Errorf("repl: oplog entry at %v has no ts", ts)
	}
	term, _ := e.Lookup("t").AsInt64OK()
	return topology.OpTime{TS: bson.Timestamp{T: t, I: i}, Term: term}, nil
}

// opTimeDoc renders op as MongoDB's {ts, t}.
func opTimeDoc(op topology.OpTime) bson.D {
	return bson.D{{Key: "ts", Value: op.TS}, {Key: "t", Value: op.Term}}
}

// parseOpTime reads {ts, t}; a missing or malformed value is the null OpTime.
func parseOpTime(v any) topology.OpTime {
	d, _ := v.(bson.D)
	var op topology.OpTime
	for _, f := range d {
		switch f.Key {
		case "ts":
			op.TS, _ = f.Value.(bson.Timestamp)
		case "t":
			op.Term = asInt(f.Value)
		}
	}
	return op
}
