package router

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func init() {
	localCommands["connPoolStats"] = handler{fn: connPoolStats}
}

// connPoolStats reports, as mongos does under replicaSets, every replica
// set the router follows (the config servers and the shards it has used)
// with each member as its hello monitor last saw it: addr, ok, ismaster,
// hidden, secondary, pingTimeMillis. It does no I/O.
//
// TODO(#14): the pool counters (totalInUse, totalAvailable, hosts, pools).
func connPoolStats(c *call) (bson.D, error) {
	r := c.r
	r.mu.Lock()
	sets := []*replSet{r.cfg}
	for _, s := range r.mu.shards {
		sets = append(sets, s)
	}
	r.mu.Unlock()
	sort.Slice(sets[1:], func(i, j int) bool { return sets[1+i].name < sets[1+j].name })
	rs := bson.D{}
	for _, s := range sets {
		hosts := bson.A{}
		for _, m := range s.rs.Members() {
			hosts = append(hosts, bson.D{
				{Key: "addr", Value: m.Host},
				{Key: "ok", Value: m.OK},
				{Key: "ismaster", Value: m.Primary},
				{Key: "hidden", Value: false}, // hidden members are not in hello's hosts
				{Key: "secondary", Value: m.Secondary},
				{Key: "pingTimeMillis", Value: int32(m.PingTime.Milliseconds())},
			})
		}
		rs = append(rs, bson.E{Key: s.name, Value: bson.D{{Key: "hosts", Value: hosts}}})
	}
	return bson.D{{Key: "replicaSets", Value: rs}}, nil
}
