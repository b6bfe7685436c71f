package router

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// killOp through a router, as mongos: op is "<shard>:<opid>" as the
// router's currentOp shows it (currentop.go); the router sends {killOp: 1,
// op: <opid>} to that shard's primary and answers as the shard did, with
// shard and shardid added. Under --auth it needs killop on the cluster
// (the shard sees the router's own identity, so "a user may kill its own
// operations" cannot be told there).
//
// TODO(#14): killing one's own operation through a router without killop
// (and currentOp's $ownOps there);
// the router's own operations (a number op) are not listed nor killable.

func init() {
	localCommands["killOp"] = handler{fn: routerKillOp, adminOnly: true}
	// The shards see the router's identity, so a router cannot tell a
	// user's own operations: currentOp through it needs inprog even with
	// $ownOps. TODO(#14): $ownOps through a router.
	routerCommands["currentOp"] = onCluster(privilege.Inprog)
}

func routerKillOp(c *call) (bson.D, error) {
	v, ok := bsonx.Get(c.cmd, "op")
	if !ok {
		return nil, mongoerr.New(mongoerr.BadValue, "Did not provide \"op\" field")
	}
	s, isString := v.(string)
	if !isString {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "the op argument to killOp through a router must be a string \"shardid:opid\", got %v", v)
	}
	shard, opStr, found := strings.Cut(s, ":")
	opid, err := strconv.ParseInt(opStr, 10, 32)
	if !found || shard == "" || err != nil {
		return nil, mongoerr.New(mongoerr.BadValue, "Invalid op id format, use shardid:opid (got %q)", s)
	}
	if err := c.r.checkKillop(c); err != nil {
		return nil, err
	}
	set, err := c.r.shard(c.ctx, shard)
	if err != nil {
		return nil, err
	}
	reply, err := set.Run(c.ctx, "admin", bson.D{{Key: "killOp", Value: int32(1)}, {Key: "op", Value: int32(opid)}}, true)
	if err != nil {
		return nil, err
	}
	out := bson.D{{Key: "shard", Value: shard}, {Key: "shardid", Value: int32(opid)}}
	for _, e := range reply {
		switch e.Key {
		case "ok", "$clusterTime", "operationTime":
		default:
			out = append(out, e)
		}
	}
	return out, nil
}

// checkKillop requires killop on the cluster under --auth.
func (r *Router) checkKillop(c *call) error {
	if !r.auth.on || c.conn == nil {
		return nil
	}
	var set privilege.Set
	for _, u := range r.authUsers(c.conn) {
		e, err := r.auth.users.get(c.ctx, u.db, u.user, false)
		if err != nil {
			return err
		}
		set = append(set, e.privs...)
	}
	if set.Allows([]privilege.Need{{Cluster: true, Actions: privilege.Killop}}) {
		return nil
	}
	return mongoerr.New(mongoerr.Unauthorized, "not authorized on admin to execute command { killOp: 1 }")
}
