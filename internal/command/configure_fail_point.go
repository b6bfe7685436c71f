package command

import (
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The failCommand fail point, as MongoDB's test command configureFailPoint
// offers it: drivers' conformance tests make chosen commands fail, block,
// close the connection or report a writeConcernError.
//
// TODO(#2): gate behind --setParameter enableTestCommands like mongod.

type failPoint struct {
	armed    atomic.Bool // fast path: false means check never locks
	mu       sync.Mutex
	on       bool
	times    int // remaining activations; -1 = always
	skip     int
	commands map[string]bool
	code     int32
	labels   []string
	closeCon bool
	block    time.Duration
	wce      bson.D
	appName  string
}

var failCommand = &failPoint{}

// activation is one triggered fail point, applied around a command.
type activation struct {
	code     int32
	labels   []string
	closeCon bool
	block    time.Duration
	wce      bson.D
}

// check reports the activation for a client command, consuming one use.
func (f *failPoint) check(cmd string, conn *Conn) *activation {
	if !f.armed.Load() {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.on || !f.commands[cmd] || (f.appName != "" && f.appName != conn.appName()) {
		return nil
	}
	if f.skip > 0 {
		f.skip--
		return nil
	}
	if f.times == 0 {
		f.on = false
		return nil
	}
	if f.times > 0 {
		f.times--
	}
	return &activation{code: f.code, labels: f.labels, closeCon: f.closeCon, block: f.block, wce: f.wce}
}

// before blocks, closes or fails the command; nil lets it run.
func (a *activation) before(req *Request) error {
	if a.block > 0 {
		time.Sleep(a.block)
	}
	if a.closeCon {
		req.CloseConn = true
		return mongoerr.New(mongoerr.HostUnreachable, "connection closed by failCommand")
	}
	if a.code != 0 {
		return &mongoerr.Error{Code: mongoerr.Code(a.code), Msg: "Failing command via 'failCommand' failpoint", Labels: a.labels}
	}
	return nil
}

// after adds a writeConcernError to a successful reply.
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

func configureFailPoint(_ *Ctx, p *request.ConfigureFailPoint) (bson.D, error) {
	name, _ := p.Name.(string)
	if name != "failCommand" {
		return nil, mongoerr.New(mongoerr.BadValue, "Cannot configure fail point %s: relaydb supports only failCommand", name)
	}
	if p.Mode == nil {
		return nil, mongoerr.New(mongoerr.BadValue, "Missing mode")
	}
	nf := &failPoint{times: -1, commands: map[string]bool{}}
	if err := nf.setMode(*p.Mode); err != nil {
		return nil, err
	}
	if err := nf.setData(p.Data); err != nil {
		return nil, err
	}
	failCommand.mu.Lock()
	failCommand.on, failCommand.times, failCommand.skip = nf.on, nf.times, nf.skip
	failCommand.commands, failCommand.code, failCommand.labels = nf.commands, nf.code, nf.labels
	failCommand.closeCon, failCommand.block, failCommand.wce, failCommand.appName = nf.closeCon, nf.block, nf.wce, nf.appName
	failCommand.armed.Store(nf.on)
	failCommand.mu.Unlock()
	return bson.D{{Key: "count", Value: int32(0)}}, nil
}

func (f *failPoint) setMode(mode any) error {
	switch m := mode.(type) {
	case string:
		switch m {
		case "alwaysOn":
			f.on = true
		case "off":
			f.on = false
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

func (f *failPoint) setData(data bson.D) error {
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
			f.code = int32(n)
		case "errorLabels":
			a, _ := e.Value.(bson.A)
			f.labels = []string{}
			for _, v := range a {
				if s, ok := v.(string); ok {
					f.labels = append(f.labels, s)
				}
			}
		case "closeConnection":
			f.closeCon, _ = e.Value.(bool)
		case "blockConnection":
		case "blockTimeMS":
			n, _ := bsonx.AsInt64(e.Value)
			f.block = time.Duration(n) * time.Millisecond
		case "writeConcernError":
			f.wce, _ = e.Value.(bson.D)
		case "appName":
			f.appName, _ = e.Value.(string)
		case "failInternalCommands":
		default:
			return mongoerr.New(mongoerr.BadValue, "unknown failCommand data field: %s", e.Key)
		}
	}
	if _, blocked := bsonx.Get(data, "blockConnection"); !blocked {
		f.block = 0
	}
	return nil
}
