package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/failpoint"
)

// failPoint is the router's own failCommand fail point (package
// failpoint), as mongos has one: configureFailPoint on a router makes the
// commands it receives fail, block, close the connection or carry a
// writeConcernError, before any shard is asked. Drivers' conformance
// tests use it.
type failPoint struct{ failpoint.FailCommand }

// activation is one triggered fail point.
type activation struct{ *failpoint.Activation }

// check returns the activation for command name from a client with
// appName, consuming one use; nil when the fail point does not apply.
func (f *failPoint) check(name, appName string) *activation {
	canonical := ""
	if name == "isMaster" || name == "ismaster" {
		canonical = "hello" // failCommands may list hello for its aliases
	}
	a := f.CheckNames(name, canonical, appName)
	if a == nil {
		return nil
	}
	return &activation{a}
}

// before blocks, closes or fails the command; nil lets it run.
func (a *activation) before(req *command.Request) error {
	closeConn, err := a.Before()
	if closeConn && req != nil {
		req.CloseConn = true
	}
	return err
}

// after adds the writeConcernError and labels to a successful reply.
func (a *activation) after(reply bson.D) bson.D { return a.After(reply) }

// configureFailPoint: {configureFailPoint: "failCommand", mode, data}.
func configureFailPoint(c *call) (bson.D, error) {
	mode, _ := bsonx.Get(c.cmd, "mode")
	data, _ := bsonx.Get(c.cmd, "data")
	d, _ := data.(bson.D)
	if handled, err := configureGetMoreFail(c, mode, d); handled { // failpoint_getmore.go
		if err != nil {
			return nil, err
		}
		return bson.D{{Key: "count", Value: int32(0)}}, nil
	}
	if err := c.r.failCommand.Configure(c.cmd[0].Value, mode, d); err != nil {
		return nil, err
	}
	return bson.D{{Key: "count", Value: int32(0)}}, nil
}

// handshakeAppName is the application name the fail point matches: a
// handshake's own (hello's client.application.name, which the connection
// stores only once the hello runs), else the connection's stored one.
func handshakeAppName(name string, cmd bson.D, stored string) string {
	if name != "hello" && name != "isMaster" && name != "ismaster" {
		return stored
	}
	client, _ := bsonx.Get(cmd, "client")
	cd, _ := client.(bson.D)
	app, _ := bsonx.Get(cd, "application")
	ad, _ := app.(bson.D)
	if v, ok := bsonx.Get(ad, "name"); ok {
		s, _ := v.(string)
		return s
	}
	return stored
}
