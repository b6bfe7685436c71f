package command

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// mongoAliases are the old names mongod accepts for the commands relaydb
// has (each Command(name, oldName) or alias list in MongoDB 7.0's source).
var mongoAliases = map[string]string{
	"buildinfo":     "buildInfo",
	"collstats":     "collStats",
	"dbstats":       "dbStats",
	"deleteIndexes": "dropIndexes",
	"findandmodify": "findAndModify",
	"isMaster":      "hello",
	"ismaster":      "hello",
}

// TestEveryMongoAliasRuns: each alias resolves to its command and runs as
// it does (issue #14: dbstats and collstats were CommandNotFound).
func TestEveryMongoAliasRuns(t *testing.T) {
	d, _, _ := newReadTestDispatcher(t, nil)
	args := map[string]bson.D{
		"collStats":     {{Key: "collStats", Value: "c"}},
		"dropIndexes":   {{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "*"}},
		"findAndModify": {{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{}}, {Key: "remove", Value: true}},
	}
	for alias, name := range mongoAliases {
		if registry[alias] == nil || registry[alias] != registry[name] {
			t.Errorf("alias %s: registry has %v, want the entry of %s", alias, registry[alias], name)
			continue
		}
		cmd, ok := args[name]
		if !ok {
			cmd = bson.D{{Key: name, Value: 1}}
		}
		cmd = append(bson.D{{Key: alias, Value: cmd[0].Value}}, cmd[1:]...)
		var reply bson.D
		if err := bson.Unmarshal(d.run(NewConn(1, "127.0.0.1:5000", ""), "db", cmd, &Request{}), &reply); err != nil {
			t.Fatal(err)
		}
		if err := replyErr(reply); err != nil {
			t.Errorf("%s: %v", alias, err)
		}
	}
}

// TestListCommandsAsMongod: listCommands names each command once, by its
// name, plus "isMaster" as mongod does; no other alias.
func TestListCommandsAsMongod(t *testing.T) {
	reply, err := listCommands(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := bsonx.Get(reply, "commands")
	cmds := v.(bson.D)
	listed := map[string]bool{}
	for i, e := range cmds {
		if i > 0 && cmds[i-1].Key >= e.Key {
			t.Errorf("listCommands not sorted at %s", e.Key)
		}
		listed[e.Key] = true
	}
	for alias, name := range mongoAliases {
		if want := alias == "isMaster"; listed[alias] != want {
			t.Errorf("listCommands lists %s: %v, want %v", alias, listed[alias], want)
		}
		if !listed[name] {
			t.Errorf("listCommands lacks %s", name)
		}
	}
	if len(cmds) != len(table)+1 {
		t.Errorf("listCommands has %d entries, want %d commands + isMaster", len(cmds), len(table))
	}
}

// TestSetParameterChainingAllowedAsMongod: chainingAllowed is a replica
// set setting (replSetReconfig settings.chainingAllowed), not a server
// parameter; setParameter refuses it with 72 and mongod's message, as
// mongod does (issue #14 item 7 asked which it should be).
func TestSetParameterChainingAllowedAsMongod(t *testing.T) {
	d, _, _ := newReadTestDispatcher(t, nil)
	cmd := bson.D{{Key: "setParameter", Value: 1}, {Key: "chainingAllowed", Value: false}}
	var reply bson.D
	if err := bson.Unmarshal(d.run(NewConn(1, "127.0.0.1:5000", ""), "admin", cmd, &Request{}), &reply); err != nil {
		t.Fatal(err)
	}
	msg, _ := bsonx.Get(reply, "errmsg")
	if err := replyErr(reply); err == nil || err.Code != mongoerr.InvalidOptions || msg != "attempted to set unrecognized parameter [chainingAllowed], use help:true to see options" {
		t.Fatalf("setParameter chainingAllowed: %v", reply)
	}
}
