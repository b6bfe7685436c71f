package netclient

import (
	"bytes"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Hello is what a replica-set client reads from a member's hello reply
// (the fields the drivers' SDAM specification uses).
type Hello struct {
	SetName         string
	WritablePrimary bool
	Secondary       bool
	ArbiterOnly     bool
	Hidden          bool              // hidden members serve no reads (RSOther)
	Tags            map[string]string // the member's tags (read preference tag sets)
	LastWriteDate   time.Time         // lastWrite.lastWriteDate (maxStalenessSeconds)
	Msg             string            // "isdbgrid" from a router
	Configsvr       bool
	Primary         string   // the primary this member knows of
	Hosts           []string // hosts, passives and arbiters
	ElectionID      bson.ObjectID
	// TopologyVersion is sent back in the next (awaitable) hello; nil
	// when the member does not support awaitable hello.
	TopologyVersion bson.D
}

// ParseHello reads reply (hello, or legacy isMaster's ismaster).
func ParseHello(reply bson.D) Hello {
	var h Hello
	h.SetName = str(reply, "setName")
	wp, found := bsonx.Get(reply, "isWritablePrimary")
	if !found {
		wp, _ = bsonx.Get(reply, "ismaster")
	}
	h.WritablePrimary, _ = wp.(bool)
	sec, _ := bsonx.Get(reply, "secondary")
	h.Secondary, _ = sec.(bool)
	arb, _ := bsonx.Get(reply, "arbiterOnly")
	h.ArbiterOnly, _ = arb.(bool)
	hidden, _ := bsonx.Get(reply, "hidden")
	h.Hidden, _ = hidden.(bool)
	h.Tags = parseTags(reply)
	h.LastWriteDate = lastWriteDate(reply)
	h.Msg = str(reply, "msg")
	h.Primary = str(reply, "primary")
	_, h.Configsvr = bsonx.Get(reply, "configsvr")
	for _, key := range []string{"hosts", "passives", "arbiters"} {
		v, _ := bsonx.Get(reply, key)
		arr, _ := v.(bson.A)
		for _, m := range arr {
			if s, ok := m.(string); ok {
				h.Hosts = append(h.Hosts, s)
			}
		}
	}
	eid, _ := bsonx.Get(reply, "electionId")
	h.ElectionID, _ = eid.(bson.ObjectID)
	tv, _ := bsonx.Get(reply, "topologyVersion")
	h.TopologyVersion, _ = tv.(bson.D)
	return h
}

// parseTags reads hello's tags (string values only, as a replica-set
// config holds them); nil when there are none.
func parseTags(reply bson.D) map[string]string {
	v, _ := bsonx.Get(reply, "tags")
	d, _ := v.(bson.D)
	if len(d) == 0 {
		return nil
	}
	tags := make(map[string]string, len(d))
	for _, e := range d {
		if s, ok := e.Value.(string); ok {
			tags[e.Key] = s
		}
	}
	return tags
}

// lastWriteDate reads lastWrite.lastWriteDate; zero when absent.
func lastWriteDate(reply bson.D) time.Time {
	v, _ := bsonx.Get(reply, "lastWrite")
	d, _ := v.(bson.D)
	lw, _ := bsonx.Get(d, "lastWriteDate")
	if dt, ok := lw.(bson.DateTime); ok {
		return dt.Time()
	}
	return time.Time{}
}

func str(d bson.D, key string) string {
	v, _ := bsonx.Get(d, key)
	s, _ := v.(string)
	return s
}

// newerElection reports whether a is a later election than b.
func newerElection(a, b bson.ObjectID) bool { return bytes.Compare(a[:], b[:]) > 0 }
