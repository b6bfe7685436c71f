package integration

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/tests/harness"
)

// pymongo's own test harness reads getParameter '*' (enableTestCommands)
// and getCmdLineOpts' parsed options (security: does the server require a
// login?) before every test; both answer as a mongod does.

func TestGetParameterReportsTestCommands(t *testing.T) {
	s := harness.Start(t)
	admin := s.Client(t).Database("admin")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, cmd := range []bson.D{
		{{Key: "getParameter", Value: "*"}},
		{{Key: "getParameter", Value: 1}, {Key: "enableTestCommands", Value: 1}},
	} {
		var reply bson.M
		if err := admin.RunCommand(ctx, cmd).Decode(&reply); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
		if reply["enableTestCommands"] != true {
			t.Errorf("%v: enableTestCommands = %v, want true", cmd, reply["enableTestCommands"])
		}
	}
}

func TestGetCmdLineOptsParsed(t *testing.T) {
	s := harness.Start(t, harness.WithArgs("--setParameter", "ttlMonitorSleepSecs=7"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var reply struct {
		Argv   []string `bson:"argv"`
		Parsed bson.Raw `bson:"parsed"`
	}
	if err := s.Client(t).Database("admin").RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&reply); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(reply.Argv, "--dbpath") || !slices.Contains(reply.Argv, "serve") {
		t.Errorf("argv = %v, want the process's arguments", reply.Argv)
	}
	p := reply.Parsed
	get := func(sect, key string) any {
		v, err := p.LookupErr(sect, key)
		if err != nil {
			return nil
		}
		switch v.Type {
		case bson.TypeInt32:
			return v.Int32()
		case bson.TypeString:
			return v.StringValue()
		}
		return v.String()
	}
	if got := get("net", "port"); got != int32(s.Port()) {
		t.Errorf("parsed.net.port = %v, want %d", got, s.Port())
	}
	if got := get("net", "bindIp"); got != "127.0.0.1" {
		t.Errorf("parsed.net.bindIp = %v, want 127.0.0.1", got)
	}
	if got := get("storage", "dbPath"); got != s.DBPath() {
		t.Errorf("parsed.storage.dbPath = %v, want %s", got, s.DBPath())
	}
	if got := get("setParameter", "ttlMonitorSleepSecs"); got != "7" {
		t.Errorf("parsed.setParameter.ttlMonitorSleepSecs = %v, want \"7\"", got)
	}
	if v, err := p.LookupErr("security"); err == nil {
		t.Errorf("parsed.security = %v on a server without --auth", v)
	}
}
