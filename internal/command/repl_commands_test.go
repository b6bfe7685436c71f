package command

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

type recordingRepl struct {
	Replication
	name string
}

func (r *recordingRepl) RunCommand(_ context.Context, name string, _ bson.D) (bson.D, error) {
	r.name = name
	return bson.D{{Key: "ran", Value: name}}, nil
}

func TestReplSetCommands(t *testing.T) {
	for _, rc := range replCommands {
		if registry[rc.name] == nil {
			t.Fatalf("%s not registered", rc.name)
		}
		d := &Dispatcher{done: make(chan struct{})}
		cmd := bson.D{{Key: rc.name, Value: int32(1)}}
		_, err := replSetCmd(&Ctx{D: d, Name: rc.name, Cmd: cmd})
		if me := mongoerr.From(err); me == nil || me.Code != codeNoReplicationEnabled {
			t.Fatalf("%s on a standalone: %v", rc.name, err)
		}
		r := &recordingRepl{}
		d.SetReplication(r)
		reply, err := replSetCmd(&Ctx{D: d, Name: rc.name, Cmd: cmd})
		if err != nil || r.name != rc.name || len(reply) != 1 {
			t.Fatalf("%s with replication: %v %v %q", rc.name, reply, err, r.name)
		}
	}
}
