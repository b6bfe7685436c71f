package configsvr

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Runner runs a command on the config server replica set's primary. An
// ok:0 reply is a *mongoerr.Error.
type Runner interface {
	Run(ctx context.Context, db string, cmd bson.D) (bson.D, error)
}

// Catalog reads and writes the config database through a Runner.
type Catalog struct {
	run Runner
	now func() time.Time
}

// NewCatalog returns a catalog over run.
func NewCatalog(run Runner) *Catalog { return &Catalog{run: run, now: time.Now} }

// Shards lists config.shards by _id.
func (c *Catalog) Shards(ctx context.Context) ([]Shard, error) {
	docs, err := c.find(ctx, ShardsColl, bson.D{})
	if err != nil {
		return nil, err
	}
	out := make([]Shard, 0, len(docs))
	for _, d := range docs {
		s, err := ParseShard(d)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// InsertShard adds s to config.shards (majority). A shard of that _id
// already present is a *mongoerr.Error with code DuplicateKey.
func (c *Catalog) InsertShard(ctx context.Context, s Shard) error {
	return c.insert(ctx, ShardsColl, s.Doc())
}

// Databases lists config.databases by _id.
func (c *Catalog) Databases(ctx context.Context) ([]Database, error) {
	docs, err := c.find(ctx, DBsColl, bson.D{})
	if err != nil {
		return nil, err
	}
	out := make([]Database, 0, len(docs))
	for _, d := range docs {
		db, err := ParseDatabase(d)
		if err != nil {
			return nil, err
		}
		out = append(out, db)
	}
	return out, nil
}

// Database returns the config.databases entry of name; found is false
// when there is none.
func (c *Catalog) Database(ctx context.Context, name string) (db Database, found bool, err error) {
	docs, err := c.find(ctx, DBsColl, bson.D{{Key: "_id", Value: name}})
	if err != nil || len(docs) == 0 {
		return Database{}, false, err
	}
	db, err = ParseDatabase(docs[0])
	return db, err == nil, err
}

// CreateDatabase returns name's entry, creating it with the shard that has
// the fewest databases as primary (or with primary, when given) if there
// is none. A name differing only in case from an existing database is
// refused (DatabaseDifferCase, 13297), as MongoDB does.
func (c *Catalog) CreateDatabase(ctx context.Context, name, primary string) (Database, error) {
	dbs, err := c.Databases(ctx)
	if err != nil {
		return Database{}, err
	}
	for _, d := range dbs {
		if d.Name == name {
			return d, nil
		}
		if strings.EqualFold(d.Name, name) {
			return Database{}, mongoerr.New(DatabaseDifferCase, "db already exists with different case already have: [%s] trying to create [%s]", d.Name, name)
		}
	}
	if primary == "" {
		shards, err := c.Shards(ctx)
		if err == nil {
			shards, err = c.withoutDraining(ctx, shards) // topology.go
		}
		if err != nil {
			return Database{}, err
		}
		if primary = PickPrimary(shards, dbs); primary == "" {
			return Database{}, mongoerr.New(ShardNotFound, "Database %s could not be created :: caused by :: No shards found", name)
		}
	}
	db := NewDatabase(name, primary, c.now())
	err = c.insert(ctx, DBsColl, db.Doc())
	if mongoerr.Is(err, mongoerr.DuplicateKey) { // another router won the race: use its choice
		got, found, rerr := c.Database(ctx, name)
		if rerr == nil && found {
			return got, nil
		}
		return Database{}, fmt.Errorf("configsvr: %s exists but cannot be read back: %v", name, rerr)
	}
	return db, err
}

// Codes the config metadata answers with.
const (
	ShardNotFound      = mongoerr.ShardNotFound
	DatabaseDifferCase = mongoerr.DatabaseDifferCase
)

// find returns every document of config.<coll> matching filter, sorted by
// _id, read with readConcern majority.
func (c *Catalog) find(ctx context.Context, coll string, filter bson.D) ([]bson.D, error) {
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "find", Value: coll}, {Key: "filter", Value: filter},
		{Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}},
		{Key: "readConcern", Value: bson.D{{Key: "level", Value: "majority"}}},
	})
	if err != nil {
		return nil, err
	}
	var out []bson.D
	for {
		batch, id, err := cursorBatch(reply)
		if err != nil {
			return nil, err
		}
		out = append(out, batch...)
		if id == 0 {
			return out, nil
		}
		if reply, err = c.run.Run(ctx, DB, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}}); err != nil {
			return nil, err
		}
	}
}

// cursorBatch reads {cursor: {id, firstBatch|nextBatch}}.
func cursorBatch(reply bson.D) ([]bson.D, int64, error) {
	cur, _ := bsonx.Get(reply, "cursor")
	cd, ok := cur.(bson.D)
	if !ok {
		return nil, 0, fmt.Errorf("configsvr: reply without a cursor: %v", reply)
	}
	idv, _ := bsonx.Get(cd, "id")
	id, _ := bsonx.AsInt64(idv)
	batch, ok := bsonx.Get(cd, "firstBatch")
	if !ok {
		batch, _ = bsonx.Get(cd, "nextBatch")
	}
	arr, _ := batch.(bson.A)
	out := make([]bson.D, 0, len(arr))
	for _, v := range arr {
		if d, ok := v.(bson.D); ok {
			out = append(out, d)
		}
	}
	return out, id, nil
}

// insert writes doc into config.<coll> with w:"majority"; a write error or
// a write concern error is returned as a *mongoerr.Error.
func (c *Catalog) insert(ctx context.Context, coll string, doc bson.D) error {
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "insert", Value: coll}, {Key: "documents", Value: bson.A{doc}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	if err != nil {
		return err
	}
	return WriteError(reply)
}

// WriteError returns the first writeErrors entry or the writeConcernError
// of a write command's ok:1 reply as a *mongoerr.Error, or nil.
func WriteError(reply bson.D) error {
	if we, ok := bsonx.Get(reply, "writeErrors"); ok {
		if arr, _ := we.(bson.A); len(arr) > 0 {
			return docError(arr[0])
		}
	}
	if wce, ok := bsonx.Get(reply, "writeConcernError"); ok {
		return docError(wce)
	}
	return nil
}

func docError(v any) error {
	d, _ := v.(bson.D)
	code, _ := bsonx.Get(d, "code")
	n, _ := bsonx.AsInt64(code)
	msg, _ := bsonx.Get(d, "errmsg")
	s, _ := msg.(string)
	return mongoerr.New(mongoerr.Code(n), "%s", s)
}

// DropDatabase removes name's config.databases entry (majority).
func (c *Catalog) DropDatabase(ctx context.Context, name string) error {
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "delete", Value: DBsColl},
		{Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: name}}}, {Key: "limit", Value: int32(1)}}}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	if err != nil {
		return err
	}
	return WriteError(reply)
}
