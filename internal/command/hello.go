package command

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Wire versions: relaydb speaks MongoDB 7.0's protocol.
const (
	minWireVersion = 0
	maxWireVersion = 21
	maxBSONSize    = 16 * 1024 * 1024
	maxMessageSize = 48_000_000
	maxWriteBatch  = 100_000
)

// processID identifies this process in topologyVersion.
var processID = bson.NewObjectID()

func hello(c *Ctx, p *request.Hello) (bson.D, error) {
	if err := c.waitAwaitable(p); err != nil {
		return nil, err
	}
	if p.Client != nil {
		c.Conn.mu.Lock()
		if c.Conn.helloDone && c.Conn.clientMeta != nil {
			c.Conn.mu.Unlock()
			return nil, mongoerr.New(mongoerr.ClientMetadataImmutable, "The client metadata document may only be sent in the first hello")
		}
		c.Conn.clientMeta = *p.Client
		c.Conn.mu.Unlock()
	}
	c.Conn.mu.Lock()
	c.Conn.helloDone = true
	c.Conn.mu.Unlock()

	reply := c.roleFields()
	if c.D.info.ClusterRole == "configsvr" {
		reply = append(reply, bson.E{Key: "configsvr", Value: int32(2)}) // as mongod --configsvr
	}
	if lenient(p.HelloOk) {
		reply = append(reply, bson.E{Key: "helloOk", Value: true})
	}
	reply = append(reply, HelloLimits(c.Conn.ID)...)
	if comp := negotiateCompression(p.Compression); comp != nil {
		reply = append(reply, bson.E{Key: "compression", Value: comp})
	}
	reply = append(reply, c.helloAuth(p.Rest)...)
	return reply, nil
}

// roleFields are the member's role: a standalone is always a writable
// primary; a replica-set member asks the coordinator (setName, hosts,
// primary, topologyVersion, lastWrite, ...).
func (c *Ctx) roleFields() bson.D {
	legacy := c.Name != "hello"
	if c.D.repl != nil {
		return c.D.repl.HelloFields(legacy)
	}
	key := "isWritablePrimary"
	if legacy {
		key = "ismaster"
	}
	return bson.D{
		{Key: key, Value: true},
		{Key: "topologyVersion", Value: bson.D{{Key: "processId", Value: processID}, {Key: "counter", Value: int64(0)}}},
	}
}

// supportedCompressors in relaydb's order of preference.
var supportedCompressors = map[string]bool{"snappy": true, "zlib": true, "zstd": true}

// negotiateCompression returns the client's compressors relaydb supports, in
// the client's order, or nil when the client offered none.
func negotiateCompression(v *any) bson.A {
	if v == nil {
		return nil
	}
	offered, _ := (*v).(bson.A)
	out := bson.A{}
	for _, v := range offered {
		if s, isStr := v.(string); isStr && supportedCompressors[s] {
			out = append(out, s)
		}
	}
	return out
}

// waitAwaitable implements awaitable hello: with topologyVersion and
// maxAwaitTimeMS the reply waits until the topology changes or the time
// passes. A standalone's topology never changes, so it waits the full time
// (bounded by shutdown).
func (c *Ctx) waitAwaitable(p *request.Hello) error {
	if p.TopologyVersion == nil || p.MaxAwaitTimeMS == nil {
		return nil
	}
	tv, ms := *p.TopologyVersion, *p.MaxAwaitTimeMS
	if ms < 0 {
		return mongoerr.New(mongoerr.BadValue, "maxAwaitTimeMS must be a non-negative integer")
	}
	if c.D.repl != nil {
		d, _ := tv.(bson.D)
		pid, _ := bsonx.Get(d, "processId")
		counter, _ := bsonx.Get(d, "counter")
		oid, _ := pid.(bson.ObjectID)
		n, _ := bsonx.AsInt64(counter)
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(ms)*time.Millisecond)
		defer cancel()
		go func() {
			select {
			case <-c.D.shuttingDown():
				cancel()
			case <-ctx.Done():
			}
		}()
		c.D.repl.WaitTopologyChange(ctx, oid, n)
		return nil
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.D.shuttingDown():
	}
	return nil
}

// HelloLimits are the limits, clock and wire versions every hello reply
// carries, a data node's and a router's alike.
func HelloLimits(connID int64) bson.D {
	return bson.D{
		{Key: "maxBsonObjectSize", Value: int32(maxBSONSize)},
		{Key: "maxMessageSizeBytes", Value: int32(maxMessageSize)},
		{Key: "maxWriteBatchSize", Value: int32(maxWriteBatch)},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(time.Now())},
		{Key: "logicalSessionTimeoutMinutes", Value: int32(30)},
		{Key: "connectionId", Value: int32(connID)},
		{Key: "minWireVersion", Value: int32(minWireVersion)},
		{Key: "maxWireVersion", Value: int32(maxWireVersion)},
		{Key: "readOnly", Value: false},
	}
}
