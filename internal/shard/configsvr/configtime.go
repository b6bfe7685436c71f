package configsvr

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// ConfigTime is the newest config server operationTime a process has
// seen in a reply (MongoDB's VectorClock configTime, kept per process and
// not gossiped between shards and routers). Metadata reads carry it as
// readConcern afterClusterTime (and $clusterTime, so a member that has
// not heard of it yet accepts it), so the member answering (a secondary
// while the set elects, a new primary) waits until its majority snapshot
// holds everything this process was told of: a shard that committed a
// migration never reads the placement from before the commit.
type ConfigTime struct {
	mu sync.Mutex
	ts bson.Timestamp
}

// Clock is the process's config time.
var Clock = &ConfigTime{}

// Now returns the newest time observed.
func (c *ConfigTime) Now() bson.Timestamp {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ts
}

// Observe takes in a config server reply's operationTime.
func (c *ConfigTime) Observe(reply bson.D) {
	v, _ := bsonx.Get(reply, "operationTime")
	ts, ok := v.(bson.Timestamp)
	if !ok {
		return
	}
	c.mu.Lock()
	if ts.After(c.ts) {
		c.ts = ts
	}
	c.mu.Unlock()
}

// Pin returns cmd, when it is a metadata read (MetadataRead), with the
// config time as readConcern afterClusterTime and $clusterTime; cmd as
// it is otherwise or before any time was observed.
func (c *ConfigTime) Pin(db string, cmd bson.D) bson.D {
	ts := c.Now()
	if ts.IsZero() || !MetadataRead(db, cmd) {
		return cmd
	}
	out := make(bson.D, 0, len(cmd)+1)
	for _, e := range cmd {
		switch e.Key {
		case "readConcern":
			rc, _ := e.Value.(bson.D)
			pinned := bson.D{}
			for _, f := range rc {
				if f.Key != "afterClusterTime" {
					pinned = append(pinned, f)
				}
			}
			e.Value = append(pinned, bson.E{Key: "afterClusterTime", Value: ts})
		case "$clusterTime":
			continue
		}
		out = append(out, e)
	}
	return append(out, bson.E{Key: "$clusterTime", Value: bson.D{{Key: "clusterTime", Value: ts},
		{Key: "signature", Value: bson.D{{Key: "hash", Value: bson.Binary{Data: make([]byte, 20)}}, {Key: "keyId", Value: int64(0)}}}}})
}
