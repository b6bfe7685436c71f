package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
)

// TestFailCommandAppNameFirstHello: a fail point naming an application
// fires on a connection's first hello, whose metadata carries the name
// (issue #14: it used to be checked before the name was stored).
func TestFailCommandAppNameFirstHello(t *testing.T) {
	r := newTestRouter(t)
	run := func(conn *command.Conn, db string, cmd bson.D) bson.D {
		body, _ := bsonx.Encode(append(cmd, bson.E{Key: "$db", Value: db}))
		out, err := bsonx.Decode(r.Handle(conn, &command.Request{Body: body}))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	admin := command.NewConn(1, "c:1", "s:2")
	out := run(admin, "admin", bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"hello", "isMaster"}}, {Key: "appName", Value: "app14"}, {Key: "errorCode", Value: 91}}}})
	if mustGet(out, "ok") != 1.0 {
		t.Fatalf("configureFailPoint: %v", out)
	}
	hello := bson.D{{Key: "hello", Value: 1}, {Key: "client", Value: bson.D{{Key: "application", Value: bson.D{{Key: "name", Value: "app14"}}}}}}
	if out := run(command.NewConn(2, "c:3", "s:2"), "admin", hello); code(out) != 91 {
		t.Fatalf("first hello of app14 = %v, want the fail point's code 91", out)
	}
}
