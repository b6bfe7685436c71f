package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
)

func TestFailCommand(t *testing.T) {
	r := newTestRouter(t)
	conn := command.NewConn(1, "c:1", "s:2")
	run := func(db string, cmd bson.D) (bson.D, *command.Request) {
		body, _ := bsonx.Encode(append(cmd, bson.E{Key: "$db", Value: db}))
		req := &command.Request{Body: body}
		out, err := bsonx.Decode(r.Handle(conn, req))
		if err != nil {
			t.Fatal(err)
		}
		return out, req
	}
	set := func(mode any, data bson.D) {
		t.Helper()
		out, _ := run("admin", bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode}, {Key: "data", Value: data}})
		if mustGet(out, "ok") != 1.0 {
			t.Fatalf("configureFailPoint: %v", out)
		}
	}
	ping := bson.D{{Key: "ping", Value: 1}}
	set(bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"ping"}}, {Key: "errorCode", Value: 91}, {Key: "errorLabels", Value: bson.A{"RetryableWriteError"}}})
	if out, _ := run("admin", ping); code(out) != 91 || mustGet(out, "errorLabels") == nil {
		t.Fatalf("first ping = %v, want ShutdownInProgress with a label", out)
	}
	if out, _ := run("admin", ping); code(out) != 0 {
		t.Fatalf("second ping = %v, want ok (times: 1)", out)
	}
	set("alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"ping"}}, {Key: "closeConnection", Value: true}})
	if _, req := run("admin", ping); !req.CloseConn {
		t.Fatal("closeConnection did not close the connection")
	}
	set("alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"ping"}}, {Key: "errorCode", Value: 2}, {Key: "appName", Value: "other"}})
	if out, _ := run("admin", ping); code(out) != 0 {
		t.Fatalf("a client of another appName failed: %v", out)
	}
	set("off", bson.D{})
	if out, _ := run("test", bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}}); code(out) != 13 {
		t.Fatalf("configureFailPoint outside admin = %v", out)
	}
}

func TestClusterTimeGossip(t *testing.T) {
	r := newTestRouter(t)
	if out := handle(t, r, "admin", bson.D{{Key: "ping", Value: 1}}); mustGet(out, "$clusterTime") != nil {
		t.Fatalf("a router that saw no cluster time gossips one: %v", out)
	}
	ct := func(sec uint32) bson.D {
		return bson.D{{Key: "$clusterTime", Value: bson.D{{Key: "clusterTime", Value: bson.Timestamp{T: sec, I: 1}}}}}
	}
	r.observeClusterTime(ct(20))
	r.observeClusterTime(ct(10)) // older: ignored
	out := handle(t, r, "admin", bson.D{{Key: "ping", Value: 1}})
	got, _ := mustGet(out, "$clusterTime").(bson.D)
	if ts, _ := clusterTimeOf(got); ts.T != 20 {
		t.Fatalf("gossiped %v, want the newest (20)", got)
	}
}
