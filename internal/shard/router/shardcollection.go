package router

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// shardCollection is MongoDB 7.0's {shardCollection: "db.c", key, unique,
// numInitialChunks, presplitHashedZones, collation} (also what
// sh.shardCollection sends). The database is created if needed; an empty
// collection gets the shard key's index (created on every shard that
// receives chunks), a non-empty one must already have an index starting
// with the key. A hashed-prefix key on an empty collection is presplit
// into 2 chunks per shard (numInitialChunks overrides); otherwise the
// collection is one chunk on the primary shard. Sharding again with the
// same key and options is a no-op, with others AlreadyInitialized (23).
func shardCollection(c *call) (bson.D, error) {
	if err := c.useMetadataWriteConcern(); err != nil {
		return nil, err
	}
	ns, _ := c.cmd[0].Value.(string)
	dbName, collName, ok := strings.Cut(ns, ".")
	if !ok || dbName == "" || collName == "" || strings.ContainsAny(dbName, "/\\ \"$") {
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "Invalid namespace specified '%s'", ns)
	}
	if dbName == "admin" || dbName == "local" || (dbName == "config" && ns != "config.system.sessions") {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "can't shard %s database", dbName)
	}
	if strings.HasPrefix(collName, "system.") {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "can't shard system namespaces %s", ns)
	}
	kv, hasKey := bsonx.Get(c.cmd, "key")
	kd, isDoc := kv.(bson.D)
	if !hasKey {
		return nil, mongoerr.New(mongoerr.IDLMissingField, "BSON field 'shardCollection.key' is missing but a required field")
	}
	if !isDoc {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'shardCollection.key' is the wrong type '%s', expected type 'object'", typeName(kv))
	}
	pattern, err := key.Parse(kd)
	if err != nil {
		return nil, err
	}
	unique := truthy(c.cmd, "unique")
	if unique && pattern.IsHashed() {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "Hashed shard keys cannot be declared unique. It's possible to ensure uniqueness on the hashed field by declaring an additional (non-hashed) unique index on the field.")
	}
	numInitial := int64(0)
	if v, ok := bsonx.Get(c.cmd, "numInitialChunks"); ok {
		if numInitial, ok = bsonx.AsInt64(v); !ok || numInitial < 0 {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "numInitialChunks must be a non-negative number")
		}
	}
	if numInitial > 0 && !pattern.HasHashedPrefix() {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "numInitialChunks is only supported when the collection is empty and has a hashed field in the shard key pattern")
	}
	if v, ok := bsonx.Get(c.cmd, "collation"); ok {
		if d, _ := v.(bson.D); !simpleCollation(d) {
			return nil, mongoerr.New(mongoerr.BadValue, "The collation for shardCollection must be {locale: 'simple'}, but found: %v", v)
		}
	}

	// Already sharded (as the config servers say now): the same request
	// again succeeds, another is refused.
	c.r.catalog.invalidate(ns)
	if cm, err := c.r.catalog.get(c.ctx, ns); err != nil {
		return nil, err
	} else if cm != nil {
		coll := cm.Collection()
		if bsonx.CompareDocs(coll.Key.Doc(), pattern.Doc()) == 0 && coll.Unique == unique {
			return bson.D{{Key: "collectionsharded", Value: ns}, {Key: "collectionUUID", Value: coll.UUID}}, nil
		}
		return nil, mongoerr.New(mongoerr.AlreadyInitialized, "sharding already enabled for collection %s with options { key: %s, unique: %t }", ns, coll.Key, coll.Unique)
	}

	db, _, err := c.r.database(c.ctx, dbName, true)
	if err != nil {
		return nil, err
	}
	primary, err := c.r.shard(c.ctx, db.Primary)
	if err != nil {
		return nil, err
	}
	if isView, err := c.r.isView(c, primary, dbName, collName); err != nil {
		return nil, err
	} else if isView {
		return nil, mongoerr.New(mongoerr.CommandNotSupportedOnView, "Namespace %s is a view, not a collection", ns)
	}
	count, err := countOn(c, primary, dbName, collName)
	if err != nil {
		return nil, err
	}
	indexes, err := listIndexesOn(c, primary, dbName, collName)
	if err != nil {
		return nil, err
	}
	if err := checkUniqueIndexes(ns, pattern, indexes); err != nil {
		return nil, err
	}
	hasIndex := slices.ContainsFunc(indexes, func(ix bson.D) bool { return usableIndex(ix, pattern, unique) })
	if count > 0 && !hasIndex {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "Please create an index that starts with the proposed shard key before sharding the collection")
	}
	if count > 0 && numInitial > 0 {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "numInitialChunks is only supported when the collection is empty and has a hashed field in the shard key pattern")
	}

	coll := configsvr.NewCollection(ns, pattern, unique, time.Now())
	var chunks []routing.Chunk
	if count > 0 || !pattern.HasHashedPrefix() {
		chunks = []routing.Chunk{{Min: pattern.GlobalMin(), Max: pattern.GlobalMax(), Shard: db.Primary,
			Lastmod: routing.ChunkVersion{Epoch: coll.Epoch, Timestamp: coll.Timestamp, Major: 1}}}
	} else {
		all, err := c.r.allShards(c.ctx)
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(all))
		for id := range all {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		split := routing.InitialSplit{Primary: db.Primary, Shards: ids}
		if numInitial > 0 {
			split.ChunksPerShard = max(int(numInitial)/len(ids), 1)
		}
		if chunks, err = routing.InitialChunks(coll, split); err != nil {
			return nil, err
		}
	}

	// The collection and the key's index exist on every shard that owns
	// chunks before the metadata says they own them.
	owners := []string{db.Primary}
	for _, ch := range chunks {
		if !slices.Contains(owners, ch.Shard) {
			owners = append(owners, ch.Shard)
		}
	}
	for _, id := range owners {
		if id == db.Primary && hasIndex {
			continue
		}
		s, err := c.r.shard(c.ctx, id)
		if err != nil {
			return nil, err
		}
		if err := createKeyIndex(c, s, dbName, collName, pattern, unique); err != nil {
			return nil, fmt.Errorf("creating the shard key index on %s: %w", id, err)
		}
	}
	all, err := c.r.allShardIDs(c)
	if err != nil {
		return nil, err
	}
	commit := func() error { return c.r.meta.CreateShardedCollection(c.ctx, coll, chunks) }
	if err := c.r.withCriticalSection(c, ns, all, commit); err != nil {
		return nil, err
	}
	notifyShardCollection(c, primary, ns, pattern, unique, numInitial) // shardcollection_event.go
	c.r.catalog.invalidate(ns)
	if cm, err := c.r.catalog.get(c.ctx, ns); err == nil && cm != nil {
		if ids, err := c.r.allShardIDs(c); err == nil {
			c.r.refreshShards(&call{r: c.r, conn: c.conn, db: dbName, cmd: c.cmd, name: c.name, ctx: c.ctx}, ids, dbName, collName, cm.PlacementVersion)
		}
	}
	c.r.log.Info("sharded collection", "ns", ns, "key", pattern.String(), "chunks", len(chunks), "primary", db.Primary)
	return bson.D{{Key: "collectionsharded", Value: ns}, {Key: "collectionUUID", Value: coll.UUID}}, nil
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case nil:
		return "null"
	case bson.A:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

func truthy(cmd bson.D, name string) bool {
	v, ok := bsonx.Get(cmd, name)
	if !ok {
		return false
	}
	switch x := v.(type) {
	case bool:
		return x
	case nil:
		return false
	}
	f, isNum := bsonx.AsFloat64(v)
	return !isNum || f != 0
}

func simpleCollation(d bson.D) bool {
	loc, _ := bsonx.Get(d, "locale")
	return len(d) == 0 || loc == "simple"
}

// isView asks the primary shard whether db.coll is a view; a capped
// collection (InvalidOptions, as MongoDB) or a time-series one
// (NotImplemented, TODO(#14)) cannot be sharded either.
func (r *Router) isView(c *call, s *replSet, db, coll string) (bool, error) {
	reply, err := s.Run(c.ctx, db, bson.D{{Key: "listCollections", Value: int32(1)},
		{Key: "filter", Value: bson.D{{Key: "name", Value: coll}}}}, true)
	if err != nil {
		return false, err
	}
	for _, d := range firstBatch(reply) {
		switch t, _ := bsonx.Get(d, "type"); t {
		case "view":
			return true, nil
		case "timeseries":
			return false, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support sharding time-series collections yet")
		}
		if capped, _ := bsonx.GetPath(d, "options.capped"); capped == true {
			return false, mongoerr.New(mongoerr.InvalidOptions, "can't shard a capped collection")
		}
		if err := checkSimpleKeyCollation(c.cmd, d); err != nil {
			return false, err
		}
	}
	return false, nil
}

func countOn(c *call, s *replSet, db, coll string) (int64, error) {
	reply, err := s.Run(c.ctx, db, bson.D{{Key: "count", Value: coll}}, true)
	if err != nil {
		return 0, err
	}
	n, _ := bsonx.Get(reply, "n")
	v, _ := bsonx.AsInt64(n)
	return v, nil
}

func listIndexesOn(c *call, s *replSet, db, coll string) ([]bson.D, error) {
	reply, err := s.Run(c.ctx, db, bson.D{{Key: "listIndexes", Value: coll}}, true)
	if mongoerr.Is(err, mongoerr.NamespaceNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return firstBatch(reply), nil
}

// firstBatch is bsonx.CursorBatch.
func firstBatch(reply bson.D) []bson.D { return bsonx.CursorBatch(reply) }

// usableIndex is MongoDB's check of an index that can serve as the shard
// key's: its key starts with the pattern's fields (same kind), it is
// neither sparse nor partial and has no collation other than simple; a
// unique shard key needs a unique index of exactly the key.
func usableIndex(ix bson.D, p key.Pattern, unique bool) bool {
	kv, _ := bsonx.Get(ix, "key")
	kd, _ := kv.(bson.D)
	if len(kd) < p.Len() || truthy(ix, "sparse") {
		return false
	}
	if _, partial := bsonx.Get(ix, "partialFilterExpression"); partial {
		return false
	}
	if col, ok := bsonx.Get(ix, "collation"); ok {
		if d, _ := col.(bson.D); !simpleCollation(d) {
			return false
		}
	}
	for i, f := range p.Fields() {
		if kd[i].Key != f.Path {
			return false
		}
		// A hashed field needs a hashed index field, a range one an
		// ascending one (MongoDB's ShardKeyPattern::isIndexUniqueForKey).
		if s, isStr := kd[i].Value.(string); isStr != f.Hashed || (isStr && s != key.Hashed) {
			return false
		} else if n, _ := bsonx.AsFloat64(kd[i].Value); !isStr && n != 1 {
			return false
		}
	}
	if unique {
		return truthy(ix, "unique") && len(kd) == p.Len()
	}
	return true
}

// checkUniqueIndexes refuses a key that a unique index (other than _id)
// does not start with: uniqueness could not be kept across shards.
func checkUniqueIndexes(ns string, p key.Pattern, indexes []bson.D) error {
	for _, ix := range indexes {
		kv, _ := bsonx.Get(ix, "key")
		kd, _ := kv.(bson.D)
		if !truthy(ix, "unique") || (len(kd) == 1 && kd[0].Key == "_id") {
			continue
		}
		prefix := len(kd) >= p.Len()
		for i := 0; prefix && i < p.Len(); i++ {
			prefix = kd[i].Key == p.Fields()[i].Path
		}
		if !prefix {
			return mongoerr.New(mongoerr.InvalidOptions, "can't shard collection '%s' with unique index on %s and proposed shard key %s. Uniqueness can't be maintained unless shard key is a prefix",
				ns, key.Format(kd), p)
		}
	}
	return nil
}

// createKeyIndex creates the shard key's index on shard s, creating the
// collection: the key pattern itself, a hashed field as a hashed index
// field, named as MongoDB names it (x_hashed, a_1_b_hashed).
func createKeyIndex(c *call, s *replSet, db, coll string, p key.Pattern, unique bool) error {
	names := make([]string, 0, p.Len())
	keyDoc := make(bson.D, 0, p.Len())
	for _, f := range p.Fields() {
		var v any = int32(1)
		if f.Hashed {
			v = key.Hashed
		}
		names = append(names, fmt.Sprintf("%s_%v", f.Path, v))
		keyDoc = append(keyDoc, bson.E{Key: f.Path, Value: v})
	}
	// Chunks split by binary key order: the key's index is simple even on
	// a collection with a default collation.
	spec := bson.D{{Key: "key", Value: keyDoc}, {Key: "name", Value: strings.Join(names, "_")},
		{Key: "collation", Value: bson.D{{Key: "locale", Value: "simple"}}}}
	if unique {
		spec = append(spec, bson.E{Key: "unique", Value: true})
	}
	_, err := s.Run(c.ctx, db, bson.D{{Key: "createIndexes", Value: coll}, {Key: "indexes", Value: bson.A{spec}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}}, true)
	if mongoerr.Is(err, mongoerr.IndexOptionsConflict) || mongoerr.Is(err, mongoerr.IndexKeySpecsConflict) {
		return nil // an index on the key exists under another name
	}
	return err
}
