package router

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// User and role management through the router runs on the config server
// replica set, whatever the command's database (a sharded cluster's users
// live there, as with mongos), with writeConcern majority unless the
// client gives one; a user write empties this router's user cache.

// userWriteWC is the write concern a user write gets when none is given.
var userWriteWC = bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: int32(60000)}}

// userCmdTimeout bounds one user command on the config servers.
const userCmdTimeout = 2 * time.Minute

// userCommands are the user and role commands, and whether each writes.
var userCommands = map[string]bool{
	"createUser": true, "updateUser": true, "dropUser": true, "dropAllUsersFromDatabase": true,
	"grantRolesToUser": true, "revokeRolesFromUser": true, "usersInfo": false,
	"createRole": true, "updateRole": true, "dropRole": true, "dropAllRolesFromDatabase": true,
	"grantRolesToRole": true, "revokeRolesFromRole": true, "grantPrivilegesToRole": true,
	"revokePrivilegesFromRole": true, "rolesInfo": false,
}

func init() {
	for name := range userCommands {
		localCommands[name] = handler{fn: userCommand}
	}
}

// userCommand runs c on the config servers' primary.
func userCommand(c *call) (bson.D, error) {
	writes := userCommands[c.name]
	cmd := withoutField(withoutField(c.cmd, "$clusterTime"), "lsid")
	if _, ok := bsonx.Get(cmd, "writeConcern"); writes && !ok {
		cmd = append(cmd[:len(cmd):len(cmd)], bson.E{Key: "writeConcern", Value: userWriteWC})
	}
	ctx, cancel := context.WithTimeout(c.ctx, userCmdTimeout)
	defer cancel()
	reply, err := c.r.cfg.Run(ctx, c.db, cmd, !writes)
	if writes {
		c.r.auth.users.invalidate() // whatever the outcome: it may have applied
		if err == nil && c.name == "createUser" {
			c.r.auth.haveUsers.Store(true) // the localhost exception closes
		}
	}
	c.r.observeClusterTime(reply)
	if err != nil {
		return nil, err
	}
	return replyFields(reply), nil
}

// replyFields is a reply without the fields invoke adds (ok and the
// cluster time gossip).
func replyFields(reply bson.D) bson.D {
	out := make(bson.D, 0, len(reply))
	for _, e := range reply {
		switch e.Key {
		case "ok", "$clusterTime", "operationTime":
			continue
		}
		out = append(out, e)
	}
	return out
}
