package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/failpoint"
)

// The failCommand fail point (package failpoint), as MongoDB's test
// command configureFailPoint offers it on a data node.

type failPoint struct{ failpoint.FailCommand }

var failCommand = &failPoint{}

// activation is one triggered fail point, applied around a command.
type activation struct{ *failpoint.Activation }

// check reports the activation for a client command, consuming one use.
func (f *failPoint) check(cmd string, conn *Conn) *activation {
	a := f.Check(cmd, conn.appName())
	if a == nil {
		return nil
	}
	return &activation{a}
}

// before blocks, closes or fails the command; nil lets it run.
func (a *activation) before(req *Request) error {
	closeConn, err := a.Before()
	if closeConn {
		req.CloseConn = true
	}
	return err
}

// after adds a writeConcernError (and labels) to a successful reply.
func (a *activation) after(reply bson.D) bson.D { return a.After(reply) }

func configureFailPoint(_ *Ctx, p *request.ConfigureFailPoint) (bson.D, error) {
	var mode any
	if p.Mode != nil {
		mode = *p.Mode
	}
	if err := failCommand.Configure(p.Name, mode, p.Data); err != nil {
		return nil, err
	}
	return bson.D{{Key: "count", Value: int32(0)}}, nil
}
