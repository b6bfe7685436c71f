package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
)

// pymongo's test harness reads getParameter '*' (enableTestCommands) and
// getCmdLineOpts' parsed options from a mongos too.
func TestRouterReportsTestCommandsAndParsedOptions(t *testing.T) {
	r := newTestRouter(t)
	for _, cmd := range []bson.D{
		{{Key: "getParameter", Value: "*"}},
		{{Key: "getParameter", Value: 1}, {Key: "enableTestCommands", Value: 1}},
	} {
		if got := mustGet(handle(t, r, "admin", cmd), "enableTestCommands"); got != true {
			t.Errorf("%v: enableTestCommands = %v, want true", cmd, got)
		}
	}
	command.SetCmdLine(bson.D{{Key: "sharding", Value: bson.D{{Key: "configDB", Value: "cfg/127.0.0.1:1"}}}})
	t.Cleanup(func() { command.SetCmdLine(nil) })
	parsed, _ := mustGet(handle(t, r, "admin", bson.D{{Key: "getCmdLineOpts", Value: 1}}), "parsed").(bson.D)
	if v, _ := bsonx.Get(parsed, "sharding"); v == nil {
		t.Fatalf("getCmdLineOpts parsed = %v, want sharding.configDB", parsed)
	}
}
