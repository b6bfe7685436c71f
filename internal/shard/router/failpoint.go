package router

import (
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// failPoint is the router's own failCommand fail point, as mongos has one:
// configureFailPoint on a router makes the commands it receives fail,
// block, close the connection or carry a writeConcernError, before any
// shard is asked. Drivers' conformance tests use it.
//
// TODO(#2): gate behind --setParameter enableTestCommands like mongos.
type failPoint struct {
	mu struct {
		sync.Mutex
		on       bool
		times    int // remaining activations; -1 = always
		skip     int
		commands map[string]bool
		act      activation
		appName  string
	}
}

// activation is one triggered fail point.
type activation struct {
	code     int32
	labels   []string
	closeCon bool
	block    time.Duration
	wce      bson.D
}

// check returns the activation for command name from a client with
// appName, consuming one use; nil when the fail point does not apply.
func (f *failPoint) check(name, appName string) *activation {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.mu.on || !f.mu.commands[name] || (f.mu.appName != "" && f.mu.appName != appName) {
		return nil
	}
	if f.mu.skip > 0 {
		f.mu.skip--
		return nil
	}
	if f.mu.times == 0 {
		f.mu.on = false
		return nil
	}
	if f.mu.times > 0 {
		f.mu.times--
	}
	a := f.mu.act
	return &a
}

// before blocks, closes or fails the command; nil lets it run.
func (a *activation) before(req *command.Request) error {
	if a.block > 0 {
		time.Sleep(a.block)
	}
	if a.closeCon {
		if req != nil {
			req.CloseConn = true
		}
		return mongoerr.New(mongoerr.HostUnreachable, "connection closed by failCommand")
	}
	if a.code != 0 {
		return &mongoerr.Error{Code: mongoerr.Code(a.code), Msg: "Failing command via 'failCommand' failpoint", Labels: a.labels}
	}
	return nil
}

// after adds the writeConcernError and labels to a successful reply.
func (a *activation) after(reply bson.D) bson.D {
	if a.wce != nil {
		reply = append(reply, bson.E{Key: "writeConcernError", Value: a.wce})
	}
	if a.labels != nil && a.code == 0 {
		labels := bson.A{}
		for _, l := range a.labels {
			labels = append(labels, l)
		}
		reply = append(reply, bson.E{Key: "errorLabels", Value: labels})
	}
	return reply
}

// configureFailPoint: {configureFailPoint: "failCommand", mode, data}.
func configureFailPoint(c *call) (bson.D, error) {
	if name, _ := c.cmd[0].Value.(string); name != "failCommand" {
		return nil, mongoerr.New(mongoerr.BadValue, "Cannot configure fail point %v: the router supports only failCommand", c.cmd[0].Value)
	}
	mode, ok := bsonx.Get(c.cmd, "mode")
	if !ok {
		return nil, mongoerr.New(mongoerr.BadValue, "Missing mode")
	}
	var nf failPointConfig
	nf.times, nf.commands = -1, map[string]bool{}
	if err := nf.setMode(mode); err != nil {
		return nil, err
	}
	data, _ := bsonx.Get(c.cmd, "data")
	d, _ := data.(bson.D)
	if err := nf.setData(d); err != nil {
		return nil, err
	}
	f := &c.r.failCommand
	f.mu.Lock()
	f.mu.on, f.mu.times, f.mu.skip, f.mu.commands, f.mu.act, f.mu.appName = nf.on, nf.times, nf.skip, nf.commands, nf.act, nf.appName
	f.mu.Unlock()
	return bson.D{{Key: "count", Value: int32(0)}}, nil
}

// failPointConfig is a parsed configureFailPoint request.
type failPointConfig struct {
	on          bool
	times, skip int
	commands    map[string]bool
	act         activation
	appName     string
}

func (f *failPointConfig) setMode(mode any) error {
	switch m := mode.(type) {
	case string:
		switch m {
		case "alwaysOn":
			f.on = true
		case "off":
		default:
			return mongoerr.New(mongoerr.BadValue, "unknown fail point mode: %s", m)
		}
		return nil
	case bson.D:
		f.on = true
		for _, e := range m {
			n, _ := bsonx.AsInt64(e.Value)
			switch e.Key {
			case "times":
				f.times = int(n)
			case "skip":
				f.skip = int(n)
			case "activationProbability":
			default:
				return mongoerr.New(mongoerr.BadValue, "unknown fail point mode field: %s", e.Key)
			}
		}
		return nil
	}
	return mongoerr.New(mongoerr.TypeMismatch, "mode must be a string or a document")
}

func (f *failPointConfig) setData(data bson.D) error {
	blocking := false
	for _, e := range data {
		switch e.Key {
		case "failCommands":
			a, _ := e.Value.(bson.A)
			for _, v := range a {
				if s, ok := v.(string); ok {
					f.commands[s] = true
				}
			}
		case "errorCode":
			n, _ := bsonx.AsInt64(e.Value)
			f.act.code = int32(n)
		case "errorLabels":
			a, _ := e.Value.(bson.A)
			f.act.labels = []string{}
			for _, v := range a {
				if s, ok := v.(string); ok {
					f.act.labels = append(f.act.labels, s)
				}
			}
		case "closeConnection":
			f.act.closeCon, _ = e.Value.(bool)
		case "blockConnection":
			blocking, _ = e.Value.(bool)
		case "blockTimeMS":
			n, _ := bsonx.AsInt64(e.Value)
			f.act.block = time.Duration(n) * time.Millisecond
		case "writeConcernError":
			f.act.wce, _ = e.Value.(bson.D)
		case "appName":
			f.appName, _ = e.Value.(string)
		case "failInternalCommands":
		default:
			return mongoerr.New(mongoerr.BadValue, "unknown failCommand data field: %s", e.Key)
		}
	}
	if !blocking {
		f.act.block = 0
	}
	return nil
}
