package configsvr

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The routers' own collections in the config database.
const (
	// MongosColl is config.mongos: one document per router, kept by the
	// router itself (its uptime report), read by sh.status().
	MongosColl = "mongos"
	// SettingsColl is config.settings: {_id: "balancer" | "autosplit" |
	// "chunksize" | "automerge", ...}; a missing document means MongoDB's
	// defaults. The shell's helpers write and read it through a router
	// (forwarded to the config servers); nothing in relaydb acts on it
	// until the balancer (#12).
	SettingsColl = "settings"
)

// Mongos is one router's config.mongos entry: {_id: "host:port", ping,
// up (seconds), waiting: true, mongoVersion, advisoryHostFQDNs, created}.
type Mongos struct {
	ID           string
	Ping         time.Time
	Up           int64
	MongoVersion string
	FQDNs        []string
	Created      time.Time // set on insert only
}

// ReportMongos upserts m's entry as mongos' uptime reporter does ($set of
// everything but created, $setOnInsert of created), w:"majority".
// Repeating it is harmless, so the runner may resend it.
func (c *Catalog) ReportMongos(ctx context.Context, m Mongos) error {
	fqdns := bson.A{}
	for _, h := range m.FQDNs {
		fqdns = append(fqdns, h)
	}
	set := bson.D{
		{Key: "ping", Value: bson.NewDateTimeFromTime(m.Ping)},
		{Key: "up", Value: m.Up},
		{Key: "waiting", Value: true}, // mongos' constant: no balancer runs in a router
		{Key: "mongoVersion", Value: m.MongoVersion},
		{Key: "advisoryHostFQDNs", Value: fqdns},
	}
	update := bson.D{
		{Key: "$set", Value: set},
		{Key: "$setOnInsert", Value: bson.D{{Key: "created", Value: bson.NewDateTimeFromTime(m.Created)}}},
	}
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "update", Value: MongosColl},
		{Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: m.ID}}},
			{Key: "u", Value: update},
			{Key: "upsert", Value: true},
		}}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	if err != nil {
		return err
	}
	return WriteError(reply)
}

// MongosEntry returns the config.mongos document of id; found is false
// when there is none.
func (c *Catalog) MongosEntry(ctx context.Context, id string) (doc bson.D, found bool, err error) {
	docs, err := c.find(ctx, MongosColl, bson.D{{Key: "_id", Value: id}})
	if err != nil || len(docs) == 0 {
		return nil, false, err
	}
	return docs[0], true, nil
}

// RouterHosts returns the _id ("host:port") of every router in
// config.mongos (at most limit).
func (c *Catalog) RouterHosts(ctx context.Context, limit int) ([]string, error) {
	docs, err := c.find(ctx, MongosColl, bson.D{})
	if err != nil {
		return nil, err
	}
	var hosts []string
	for _, d := range docs[:min(len(docs), limit)] {
		for _, e := range d {
			if id, ok := e.Value.(string); ok && e.Key == "_id" {
				hosts = append(hosts, id)
			}
		}
	}
	return hosts, nil
}
