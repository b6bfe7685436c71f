package cluster

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Host is the loopback address of a member on port.
func Host(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }

// InitiateConfig is the replSetInitiate document for s with members on the
// given ports (one per member, in Members order). Every member field is
// written explicitly so the config reads the same on every server.
func InitiateConfig(s Spec, ports []int) (bson.D, error) {
	s = s.withDefaults()
	members := s.Members()
	if len(ports) != len(members) {
		return nil, fmt.Errorf("cluster: %d ports for %d members", len(ports), len(members))
	}
	arr := make(bson.A, len(members))
	for i, m := range members {
		arr[i] = memberDoc(i, ports[i], m)
	}
	return bson.D{
		{Key: "_id", Value: s.Name},
		{Key: "version", Value: int32(1)},
		{Key: "protocolVersion", Value: int64(1)},
		{Key: "members", Value: arr},
		{Key: "settings", Value: settingsDoc(s.Chaining)},
	}, nil
}

func memberDoc(id, port int, m MemberSpec) bson.D {
	return bson.D{
		{Key: "_id", Value: int32(id)},
		{Key: "host", Value: Host(port)},
		{Key: "arbiterOnly", Value: m.ArbiterOnly},
		{Key: "hidden", Value: m.Hidden},
		{Key: "priority", Value: m.Priority},
		{Key: "votes", Value: int32(m.Votes)},
		{Key: "secondaryDelaySecs", Value: int64(m.SecondaryDelaySecs)},
	}
}

// settingsDoc maps --chaining to MongoDB's chainingAllowed and relaydb's
// chainingMode extension ("auto" requires chainingAllowed: true).
func settingsDoc(chaining string) bson.D {
	d := bson.D{{Key: "chainingAllowed", Value: chaining != "false"}}
	if chaining == "auto" {
		d = append(d, bson.E{Key: "chainingMode", Value: "auto"})
	}
	return d
}

// URIFor is the replicaSet connection string over the visible members
// (hidden and delayed members and arbiters are not seeds).
func URIFor(name string, hosts []string) string {
	uri := "mongodb://"
	for i, h := range hosts {
		if i > 0 {
			uri += ","
		}
		uri += h
	}
	return uri + "/?replicaSet=" + name
}
