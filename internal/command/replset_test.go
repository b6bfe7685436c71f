package command

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// recordingRepl records which replSet* method the table called.
type recordingRepl struct {
	Replication
	name string
}

func (r *recordingRepl) ran(name string) (bson.D, error) {
	r.name = name
	return bson.D{{Key: "ran", Value: name}}, nil
}

func (r *recordingRepl) ReplSetInitiate(bson.D) (bson.D, error)  { return r.ran("replSetInitiate") }
func (r *recordingRepl) ReplSetGetConfig() (bson.D, error)       { return r.ran("replSetGetConfig") }
func (r *recordingRepl) ReplSetReconfig(bson.D) (bson.D, error)  { return r.ran("replSetReconfig") }
func (r *recordingRepl) ReplSetGetStatus() (bson.D, error)       { return r.ran("replSetGetStatus") }
func (r *recordingRepl) ReplSetFreeze(bson.D) (bson.D, error)    { return r.ran("replSetFreeze") }
func (r *recordingRepl) ReplSetSyncFrom(bson.D) (bson.D, error)  { return r.ran("replSetSyncFrom") }
func (r *recordingRepl) ReplSetHeartbeat(bson.D) (bson.D, error) { return r.ran("replSetHeartbeat") }
func (r *recordingRepl) ReplSetMaintenance(bson.D) (bson.D, error) {
	return r.ran("replSetMaintenance")
}
func (r *recordingRepl) ReplSetRequestVotes(bson.D) (bson.D, error) {
	return r.ran("replSetRequestVotes")
}
func (r *recordingRepl) ReplSetUpdatePosition(bson.D) (bson.D, error) {
	return r.ran("replSetUpdatePosition")
}
func (r *recordingRepl) ReplSetStepDown(context.Context, bson.D) (bson.D, error) {
	return r.ran("replSetStepDown")
}

func TestReplSetCommands(t *testing.T) {
	n := 0
	for _, c := range table {
		if !strings.HasPrefix(c.Name, "replSet") {
			continue
		}
		n++
		d := &Dispatcher{done: make(chan struct{})}
		cmd := bson.D{{Key: c.Name, Value: int32(1)}}
		_, err := c.Def.run(&Ctx{D: d, Name: c.Name, Cmd: cmd})
		if me := mongoerr.From(err); me == nil || me.Code != mongoerr.NoReplicationEnabled {
			t.Fatalf("%s on a standalone: %v", c.Name, err)
		}
		r := &recordingRepl{}
		d.SetReplication(r)
		reply, err := c.Def.run(&Ctx{D: d, Name: c.Name, Cmd: cmd})
		if err != nil || r.name != c.Name || len(reply) != 1 {
			t.Fatalf("%s with replication: %v %v %q", c.Name, reply, err, r.name)
		}
	}
	if n != 11 {
		t.Fatalf("%d replSet commands in the table, want 11", n)
	}
}
