package netclient

import (
	"bytes"

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
	Msg             string // "isdbgrid" from a router
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

func str(d bson.D, key string) string {
	v, _ := bsonx.Get(d, key)
	s, _ := v.(string)
	return s
}

// newerElection reports whether a is a later election than b.
func newerElection(a, b bson.ObjectID) bool { return bytes.Compare(a[:], b[:]) > 0 }
