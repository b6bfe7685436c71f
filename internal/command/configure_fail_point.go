package command

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/bsonx"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/failpoint"
)

// The failCommand fail point (package failpoint), as MongoDB's test
// command configureFailPoint offers it on a data node, and the named fail
// points (onPrimaryTransactionalWrite, maxTimeAlwaysTimeOut,
// stopReplProducer) that act where their hooks are.

type failPoint struct{ failpoint.FailCommand }

var failCommand = &failPoint{}

// activation is one triggered fail point, applied around a command.
type activation struct{ *failpoint.Activation }

// check reports the activation for a client command, consuming one use.
// Internal requests are exempt, as mongod exempts internal clients unless
// failInternalCommands is set (TODO(#14): failInternalCommands).
func (f *failPoint) check(ctx *Ctx) *activation {
	if internalRequest(ctx) {
		return nil
	}
	canonical := ""
	if c, ok := registry[ctx.Name]; ok {
		canonical = c.Name
	}
	a := f.CheckNames(ctx.Name, canonical, requestAppName(ctx))
	if a == nil {
		return nil
	}
	return &activation{a}
}

// requestAppName is the client's application name: a handshake's own
// (hello's client.application.name, which the connection has not stored
// yet when the fail point is checked), else the connection's.
func requestAppName(ctx *Ctx) string {
	switch ctx.Name {
	case "hello", "isMaster", "ismaster":
		client, _ := bsonx.Get(ctx.Cmd, "client")
		app, _ := bsonx.Get(asDoc(client), "application")
		if name, ok := bsonx.Get(asDoc(app), "name"); ok {
			s, _ := name.(string)
			return s
		}
	}
	return ctx.Conn.appName()
}

func asDoc(v any) bson.D {
	d, _ := v.(bson.D)
	return d
}

// internalRequest reports a request from another member or process of the
// deployment rather than a client: an in-process request (no connection),
// a connection logged in as __system, a read of the local database (a
// secondary's oplog fetcher: find/getMore on local.oplog.rs) or a
// member-to-member command (replSetHeartbeat, replSetUpdatePosition,
// replSetRequestVotes, the "_"-prefixed internal commands). Without
// authentication, an initial sync's clone reads are not recognised
// (TODO(#14): mark internal connections with hello's internalClient).
func internalRequest(ctx *Ctx) bool {
	if ctx.Conn == nil || ctx.DB == "local" || strings.HasPrefix(ctx.Name, "_") {
		return true
	}
	switch ctx.Name {
	case "replSetHeartbeat", "replSetUpdatePosition", "replSetRequestVotes":
		return true
	}
	for _, u := range ctx.Conn.authUsers() {
		if u.user == auth.SystemUser && u.db == auth.SystemDB {
			return true
		}
	}
	return false
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
	if err := failpoint.Configure(&failCommand.FailCommand, p.Name, mode, p.Data); err != nil {
		return nil, err
	}
	return bson.D{{Key: "count", Value: int32(0)}}, nil
}
