package configsvr

import (
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Namespaces of the metadata collections.
const (
	DB          = "config"
	ShardsColl  = "shards"
	DBsColl     = "databases"
	ShardActive = int32(1) // config.shards state of a shard in service
)

// Shard is one config.shards document:
// {_id: "sh0", host: "sh0/h1:p1,h2:p2", state: 1}.
type Shard struct {
	ID    string
	Host  string // "setName/host:port,..."
	State int32
}

// Doc is s as stored.
func (s Shard) Doc() bson.D {
	return bson.D{{Key: "_id", Value: s.ID}, {Key: "host", Value: s.Host}, {Key: "state", Value: s.State}}
}

// SetName and Seeds split Host ("setName/h:p,h:p").
func (s Shard) SetName() string {
	name, _, _ := strings.Cut(s.Host, "/")
	return name
}

// Seeds returns the hosts of Host.
func (s Shard) Seeds() []string { return SplitHosts(s.Host) }

// SplitHosts returns the host list of "setName/h:p,h:p" or "h:p,h:p".
func SplitHosts(conn string) []string {
	if _, list, ok := strings.Cut(conn, "/"); ok {
		conn = list
	}
	var out []string
	for _, h := range strings.Split(conn, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// ParseShard reads a config.shards document.
func ParseShard(d bson.D) (Shard, error) {
	var s Shard
	id, _ := bsonx.Get(d, "_id")
	host, _ := bsonx.Get(d, "host")
	s.ID, _ = id.(string)
	s.Host, _ = host.(string)
	if st, ok := bsonx.Get(d, "state"); ok {
		n, _ := bsonx.AsInt64(st)
		s.State = int32(n)
	}
	if s.ID == "" || s.Host == "" {
		return Shard{}, fmt.Errorf("configsvr: malformed config.shards document %v", d)
	}
	return s, nil
}

// DatabaseVersion is config.databases' version: {uuid, timestamp, lastMod}.
type DatabaseVersion struct {
	UUID      bson.Binary
	Timestamp bson.Timestamp
	LastMod   int32
}

// Database is one config.databases document:
// {_id: "db", primary: "sh0", version: {uuid, timestamp, lastMod}}.
type Database struct {
	Name    string
	Primary string
	Version DatabaseVersion
}

// Doc is d as stored.
func (d Database) Doc() bson.D {
	return bson.D{
		{Key: "_id", Value: d.Name},
		{Key: "primary", Value: d.Primary},
		{Key: "version", Value: d.Version.Doc()},
	}
}

// Doc is v as stored (and as a router sends it as databaseVersion).
func (v DatabaseVersion) Doc() bson.D {
	return bson.D{{Key: "uuid", Value: v.UUID}, {Key: "timestamp", Value: v.Timestamp}, {Key: "lastMod", Value: v.LastMod}}
}

// NewDatabase returns the document of a new database on primary, with a
// fresh version (random UUID v4, timestamp now, lastMod 1).
func NewDatabase(name, primary string, now time.Time) Database {
	u := make([]byte, 16)
	_, _ = rand.Read(u)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return Database{Name: name, Primary: primary, Version: DatabaseVersion{
		UUID:      bson.Binary{Subtype: 4, Data: u},
		Timestamp: bson.Timestamp{T: uint32(now.Unix()), I: 1},
		LastMod:   1,
	}}
}

// ParseDatabase reads a config.databases document.
func ParseDatabase(d bson.D) (Database, error) {
	var db Database
	id, _ := bsonx.Get(d, "_id")
	primary, _ := bsonx.Get(d, "primary")
	db.Name, _ = id.(string)
	db.Primary, _ = primary.(string)
	if v, ok := bsonx.Get(d, "version"); ok {
		vd, _ := v.(bson.D)
		u, _ := bsonx.Get(vd, "uuid")
		db.Version.UUID, _ = u.(bson.Binary)
		ts, _ := bsonx.Get(vd, "timestamp")
		db.Version.Timestamp, _ = ts.(bson.Timestamp)
		lm, _ := bsonx.Get(vd, "lastMod")
		n, _ := bsonx.AsInt64(lm)
		db.Version.LastMod = int32(n)
	}
	if db.Name == "" || db.Primary == "" {
		return Database{}, fmt.Errorf("configsvr: malformed config.databases document %v", d)
	}
	return db, nil
}

// PickPrimary returns the shard to hold a new database: the active shard
// with the fewest databases, ties broken by _id so every router picks the
// same one from the same metadata. "" when there is no shard.
func PickPrimary(shards []Shard, dbs []Database) string {
	count := map[string]int{}
	for _, d := range dbs {
		count[d.Primary]++
	}
	ids := make([]string, 0, len(shards))
	for _, s := range shards {
		if s.State == ShardActive || s.State == 0 {
			ids = append(ids, s.ID)
		}
	}
	slices.Sort(ids)
	best := ""
	for _, id := range ids {
		if best == "" || count[id] < count[best] {
			best = id
		}
	}
	return best
}
