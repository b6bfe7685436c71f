package command

import (
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestCommandTable(t *testing.T) {
	if !sort.SliceIsSorted(commands, func(i, j int) bool { return commands[i].Name < commands[j].Name }) {
		t.Fatal("command table not sorted")
	}
	var writes []string
	for _, c := range commands {
		s := c.Def.spec
		if s.Name != c.Name || s.Roles == 0 || c.Help == "" {
			t.Errorf("%s: spec %q, roles %v, help %q", c.Name, s.Name, s.Roles, c.Help)
		}
		if c.Write {
			writes = append(writes, c.Name)
		}
		if c.Write && c.Read {
			t.Errorf("%s is both Write and Read", c.Name)
		}
	}
	want := "_configsvrCommitChunkMigration _configsvrEnsureChunkVersionIsGreaterThan _recvChunkAbort _recvChunkCommit _recvChunkStart _shardsvrMoveRange _shardsvrNotifyShardingEvent _shardsvrScheduleRangeDeletion cloneCollectionAsCapped collMod convertToCapped create createIndexes createRole createUser delete drop dropAllRolesFromDatabase dropAllUsersFromDatabase dropDatabase dropIndexes dropRole dropUser findAndModify grantPrivilegesToRole grantRolesToRole grantRolesToUser insert renameCollection revokePrivilegesFromRole revokeRolesFromRole revokeRolesFromUser setIPAllowlist update updateRole updateUser"
	if got := strings.Join(writes, " "); got != want {
		t.Fatalf("write commands:\n got %s\nwant %s", got, want)
	}
}

// TestAnyField pins the commands that take any field (their struct has an
// inline field): the rest reject unknown fields with 40415.
func TestAnyField(t *testing.T) {
	var open []string
	for _, c := range commands {
		if c.Def.spec.Fields() == nil {
			open = append(open, c.Name)
		}
	}
	want := "abortTransaction buildInfo collMod commitTransaction connectionStatus currentOp drop dropDatabase endSessions " +
		"getCmdLineOpts getFreeMonitoringStatus getLog getParameter hello hostInfo killAllSessions " +
		"killAllSessionsByPattern killSessions listCommands ping refreshSessions replSetFreeze replSetGetConfig " +
		"replSetGetStatus replSetHeartbeat replSetInitiate replSetMaintenance replSetReconfig replSetRequestVotes " +
		"replSetStepDown replSetSyncFrom replSetUpdatePosition serverStatus setParameter shutdown startSession whatsmyuri"
	if got := strings.Join(open, " "); got != want {
		t.Fatalf("commands taking any field:\n got %s\nwant %s", got, want)
	}
}

// TestTypedErrors checks the codec's errors as the dispatcher returns them.
func TestTypedErrors(t *testing.T) {
	d, _, _ := newReadTestDispatcher(t, nil)
	cases := []struct {
		cmd  bson.D
		code mongoerr.Code
		msg  string
	}{
		{bson.D{{Key: "find", Value: "c"}, {Key: "bogus", Value: 1}}, mongoerr.IDLUnknownField, "BSON field 'find.bogus' is an unknown field."},
		{bson.D{{Key: "find", Value: "c"}, {Key: "limit", Value: "x"}}, mongoerr.TypeMismatch, "BSON field 'find.limit' is the wrong type 'string', expected types '[long, int, decimal, double]'"},
		{bson.D{{Key: "find", Value: "c"}, {Key: "skip", Value: int32(-1)}}, mongoerr.IDLNegativeValue, "BSON field 'skip' value must be >= 0, actual value '-1'"},
		{bson.D{{Key: "insert", Value: "c"}}, mongoerr.IDLMissingField, "BSON field 'insert.documents' is missing but a required field"},
		{bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{int32(1)}}}, mongoerr.TypeMismatch, "BSON field 'insert.documents.0' is the wrong type 'int', expected type 'object'"},
		{bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}}}}}, mongoerr.IDLMissingField, "BSON field 'delete.deletes.limit' is missing but a required field"},
		{bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: int32(2)}}}}}, mongoerr.FailedToParse, "The limit field in delete objects must be 0 or 1. Got 2"},
		{bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: nil}, {Key: "u", Value: bson.D{}}}}}}, mongoerr.TypeMismatch, "BSON field 'update.updates.q' is the wrong type 'null', expected type 'object'"},
		{bson.D{{Key: "getMore", Value: int32(1)}, {Key: "collection", Value: "c"}}, mongoerr.TypeMismatch, "BSON field 'getMore.getMore' is the wrong type 'int', expected type 'long'"},
		{bson.D{{Key: "find", Value: int32(1)}}, mongoerr.InvalidNamespace, "collection name has invalid type int"},
		{bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}}}, mongoerr.FailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument"},
		{bson.D{{Key: "findandmodify", Value: "c"}, {Key: "bogus", Value: 1}}, mongoerr.IDLUnknownField, "BSON field 'findAndModify.bogus' is an unknown field."},
	}
	for _, tc := range cases {
		_, err := runRead(d, tc.cmd)
		if me := mongoerr.From(err); me == nil || me.Code != tc.code || me.Msg != tc.msg {
			t.Errorf("%v: got %v, want %d %q", tc.cmd, err, tc.code, tc.msg)
		}
	}
}

// TestRoundTrip decodes a request of every command with a typical shape
// and checks that encoding gives it back.
func TestRoundTrip(t *testing.T) {
	reqs := []bson.D{
		{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "a", Value: int32(1)}}}, {Key: "limit", Value: int64(2)}, {Key: "$db", Value: "t"}},
		{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: int32(1)}}}}, {Key: "ordered", Value: false}},
		{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: int32(1)}}}}}, {Key: "multi", Value: true}}}}},
		{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: int64(1)}}}}},
		{{Key: "getMore", Value: int64(5)}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: int64(3)}},
		{{Key: "replSetStepDown", Value: int32(60)}, {Key: "force", Value: true}},
	}
	for _, req := range reqs {
		c := registry[req[0].Key]
		v := newRequest(c)
		if err := cmdspec.Decode(req, v); err != nil {
			t.Fatalf("%v: %v", req, err)
		}
		got, err := cmdspec.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		b1, _ := bson.Marshal(req)
		b2, _ := bson.Marshal(got)
		if string(b1) != string(b2) {
			t.Errorf("round trip:\n got %v\nwant %v", got, req)
		}
	}
}

// FuzzCommandStructs decodes arbitrary documents into every command's
// struct: decoding never panics, and whatever decodes encodes to a
// document that decodes to the same encoding again.
func FuzzCommandStructs(f *testing.F) {
	for _, req := range []bson.D{
		{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "a", Value: int32(1)}}}, {Key: "hint", Value: bson.D{}}, {Key: "collation", Value: bson.D{}}},
		{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.A{}}, {Key: "arrayFilters", Value: bson.A{bson.D{}}}}}}, {Key: "ordered", Value: nil}},
		{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0.0}}}}},
		{{Key: "hello", Value: int32(1)}, {Key: "topologyVersion", Value: nil}, {Key: "saslSupportedMechs", Value: "a.b"}},
		{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: nil}, {Key: "data", Value: bson.D{}}},
	} {
		b, _ := bson.Marshal(req)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var req bson.D
		if bson.Unmarshal(raw, &req) != nil || len(req) == 0 {
			return
		}
		for _, c := range commands {
			v := newRequest(c)
			if cmdspec.Decode(req, v) != nil {
				continue
			}
			enc1, err := cmdspec.Encode(v)
			if err != nil {
				t.Fatalf("%s: encode: %v", c.Name, err)
			}
			v2 := newRequest(c)
			if err := cmdspec.Decode(enc1, v2); err != nil {
				t.Fatalf("%s: %v does not decode: %v", c.Name, enc1, err)
			}
			enc2, _ := cmdspec.Encode(v2)
			b1, err1 := bson.Marshal(enc1)
			b2, err2 := bson.Marshal(enc2)
			if err1 != nil || err2 != nil || string(b1) != string(b2) {
				t.Fatalf("%s: unstable: %v -> %v", c.Name, enc1, enc2)
			}
		}
	})
}

// ownWriteConcern are the write commands whose handlers wait for the write
// concern on their own WriteResult (awaitWriteConcern in writeReply and findAndModify).
var ownWriteConcern = map[string]bool{"insert": true, "update": true, "delete": true, "findAndModify": true,
	// each metadata write of the config server's commands waits for the
	// request's write concern made majority (configsvr_migration.go)
	"_configsvrCommitChunkMigration": true, "_configsvrEnsureChunkVersionIsGreaterThan": true}

// TestEveryWriteHonoursWriteConcern: a write command either waits on its
// own WriteResult or has AfterWrite, so the dispatcher waits after it (issue
// #9: DDL used to answer before its write concern was met).
func TestEveryWriteHonoursWriteConcern(t *testing.T) {
	for _, c := range commands {
		if c.Write && c.AfterWrite == nil && !ownWriteConcern[c.Name] {
			t.Errorf("write command %s has no write-concern wait (AfterWrite or its own)", c.Name)
		}
		if ownWriteConcern[c.Name] && c.AfterWrite != nil {
			t.Errorf("%s would wait for its write concern twice", c.Name)
		}
	}
	out := bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$out", Value: "d"}}}}}
	if agg := registry["aggregate"]; agg.AfterWrite == nil || !agg.AfterWrite(out) {
		t.Error("aggregate with $out does not wait for its write concern")
	}
}
