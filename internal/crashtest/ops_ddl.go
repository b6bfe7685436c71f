package crashtest

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// DDL commands are built by hand so that the writeConcern field is
// certainly sent (driver helpers differ in whether they pass it).

// createOp creates an absent collection.
type createOp struct{ NS string }

func (o *createOp) Kind() string   { return "create" }
func (o *createOp) String() string { return "create " + o.NS }
func (o *createOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	db, coll := splitNS(o.NS)
	return runCommand(ctx, cl, db, withWC(bson.D{{Key: "create", Value: coll}}, wc))
}
func (o *createOp) Apply(m *Model)                 { m.coll(o.NS) }
func (o *createOp) Partial(*Model, State) []*Model { return nil }

// dropOp drops a present collection.
type dropOp struct{ NS string }

func (o *dropOp) Kind() string   { return "drop" }
func (o *dropOp) String() string { return "drop " + o.NS }
func (o *dropOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	db, coll := splitNS(o.NS)
	return runCommand(ctx, cl, db, withWC(bson.D{{Key: "drop", Value: coll}}, wc))
}
func (o *dropOp) Apply(m *Model)                 { delete(m.Colls, o.NS) }
func (o *dropOp) Partial(*Model, State) []*Model { return nil }

// dropDatabaseOp drops DB.
type dropDatabaseOp struct{ DB string }

func (o *dropDatabaseOp) Kind() string   { return "dropDatabase" }
func (o *dropDatabaseOp) String() string { return "dropDatabase " + o.DB }
func (o *dropDatabaseOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	return runCommand(ctx, cl, o.DB, withWC(bson.D{{Key: "dropDatabase", Value: 1}}, wc))
}

func (o *dropDatabaseOp) Apply(m *Model) {
	for ns := range m.Colls {
		if db, _ := splitNS(ns); db == o.DB {
			delete(m.Colls, ns)
		}
	}
}

// Partial: relaydb drops the collections one batch each, so any of them
// (those observed absent) may be gone.
func (o *dropDatabaseOp) Partial(before *Model, got State) []*Model {
	m := before.Clone()
	for ns := range m.Colls {
		if db, _ := splitNS(ns); db == o.DB && got[ns] == nil {
			delete(m.Colls, ns)
		}
	}
	return []*Model{m}
}

// createIndexOp builds one index (creating the collection if absent).
type createIndexOp struct {
	NS, Name string
	Key      bson.D
}

func (o *createIndexOp) Kind() string   { return "createIndexes" }
func (o *createIndexOp) String() string { return fmt.Sprintf("createIndexes %s %s", o.NS, o.Name) }
func (o *createIndexOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	db, coll := splitNS(o.NS)
	spec := bson.D{{Key: "key", Value: o.Key}, {Key: "name", Value: o.Name}}
	return runCommand(ctx, cl, db, withWC(bson.D{{Key: "createIndexes", Value: coll},
		{Key: "indexes", Value: bson.A{spec}}}, wc))
}
func (o *createIndexOp) Apply(m *Model) { m.coll(o.NS).Indexes[o.Name] = relaxed(o.Key) }

// Partial: on a collection that does not exist, relaydb (as MongoDB, with
// its create and createIndexes oplog entries) creates the collection in
// one batch and builds the index in another, so the collection may exist
// without the index.
func (o *createIndexOp) Partial(before *Model, _ State) []*Model {
	if _, exists := before.Colls[o.NS]; exists {
		return nil
	}
	m := before.Clone()
	m.coll(o.NS)
	return []*Model{m}
}

// dropIndexOp drops one index by name.
type dropIndexOp struct{ NS, Name string }

func (o *dropIndexOp) Kind() string   { return "dropIndexes" }
func (o *dropIndexOp) String() string { return fmt.Sprintf("dropIndexes %s %s", o.NS, o.Name) }
func (o *dropIndexOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	db, coll := splitNS(o.NS)
	return runCommand(ctx, cl, db, withWC(bson.D{{Key: "dropIndexes", Value: coll}, {Key: "index", Value: o.Name}}, wc))
}
func (o *dropIndexOp) Apply(m *Model)                 { delete(m.coll(o.NS).Indexes, o.Name) }
func (o *dropIndexOp) Partial(*Model, State) []*Model { return nil }

// renameOp renames From to To (same database), dropping To if it exists
// and DropTarget is set.
type renameOp struct {
	From, To   string
	DropTarget bool
}

func (o *renameOp) Kind() string { return "renameCollection" }
func (o *renameOp) String() string {
	return fmt.Sprintf("renameCollection %s -> %s dropTarget=%v", o.From, o.To, o.DropTarget)
}
func (o *renameOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	return runCommand(ctx, cl, "admin", withWC(bson.D{{Key: "renameCollection", Value: o.From},
		{Key: "to", Value: o.To}, {Key: "dropTarget", Value: o.DropTarget}}, wc))
}
func (o *renameOp) Apply(m *Model) {
	m.Colls[o.To] = m.Colls[o.From]
	delete(m.Colls, o.From)
}
func (o *renameOp) Partial(*Model, State) []*Model { return nil } // one batch in relaydb

// collModOp is a no-op collMod (relaydb accepts only generic fields
// today): its effect check is that nothing changed.
type collModOp struct{ NS string }

func (o *collModOp) Kind() string   { return "collMod" }
func (o *collModOp) String() string { return "collMod (no-op) " + o.NS }
func (o *collModOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	db, coll := splitNS(o.NS)
	return runCommand(ctx, cl, db, withWC(bson.D{{Key: "collMod", Value: coll}}, wc))
}
func (o *collModOp) Apply(*Model)                   {}
func (o *collModOp) Partial(*Model, State) []*Model { return nil }
