package router

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// aliases maps the router's lower-case command spellings to the
// canonical names privileges are keyed by.
var aliases = map[string]string{
	"addshard": "addShard", "buildinfo": "buildInfo", "enablesharding": "enableSharding",
	"ismaster": "hello", "isMaster": "hello", "listshards": "listShards", "shardcollection": "shardCollection",
	"moveprimary": "movePrimary", "removeshard": "removeShard", "getshardversion": "getShardVersion",
	"findandmodify": "findAndModify",
}

func canonicalName(name string) string {
	if a, ok := aliases[name]; ok {
		return a
	}
	return name
}

// unauthenticatedOK are the commands a connection may run before it
// authenticates, as on a data node (cmdspec's "unauthenticated" role).
func unauthenticatedOK(name string) bool {
	switch name {
	case "hello", "ping", "buildInfo", "whatsmyuri", "connectionStatus", "saslStart", "saslContinue", "logout", "isdbgrid",
		"authenticate":
		return true
	}
	return false
}

// routerCommands are the privileges of the router's own commands, as
// mongos checks them; every other command's come from package privilege.
var routerCommands = map[string]func(db string, cmd bson.D) []privilege.Need{
	"addShard":                     onCluster(privilege.AddShard),
	"removeShard":                  onCluster(privilege.RemoveShard),
	"listShards":                   onCluster(privilege.ListShards),
	"flushRouterConfig":            onCluster(privilege.FlushRouterConfig),
	"connPoolStats":                onCluster(privilege.ConnPoolStats),
	"checkMetadataConsistency":     onCluster(privilege.CheckMetadataConsistency),
	"enableSharding":               onNamedDB(privilege.EnableSharding),
	"movePrimary":                  onNamedDB(privilege.MoveChunk),
	"shardCollection":              onNamespace(privilege.EnableSharding),
	"balancerCollectionStatus":     onNamespace(privilege.EnableSharding),
	"configureCollectionBalancing": onNamespace(privilege.EnableSharding),
	"split":                        onNamespace(privilege.SplitChunk),
	"splitChunk":                   onNamespace(privilege.SplitChunk),
	"moveChunk":                    onNamespace(privilege.MoveChunk),
	"moveRange":                    onNamespace(privilege.MoveChunk),
	"getShardVersion":              onNamespace(privilege.GetShardVersion),
	"balancerStart":                onSettings(privilege.Update),
	"balancerStop":                 onSettings(privilege.Update),
	"balancerStatus":               onSettings(privilege.Find),
	"isdbgrid":                     func(string, bson.D) []privilege.Need { return nil },
}

// routerNeeds returns what name (canonical) needs; ok is false for a
// command no table knows (refused).
func routerNeeds(name, db string, cmd bson.D) ([]privilege.Need, bool) {
	if f, ok := routerCommands[name]; ok {
		return f(db, cmd), true
	}
	return privilege.Needs(name, db, cmd)
}

func onCluster(a privilege.Action) func(string, bson.D) []privilege.Need {
	return func(string, bson.D) []privilege.Need { return []privilege.Need{{Cluster: true, Actions: a}} }
}

// onNamedDB: the command's value names a database ({enableSharding: "db"}).
func onNamedDB(a privilege.Action) func(string, bson.D) []privilege.Need {
	return func(_ string, cmd bson.D) []privilege.Need {
		db, _ := cmd[0].Value.(string)
		return []privilege.Need{{DB: db, Actions: a}}
	}
}

// onNamespace: the command's value is a namespace "db.coll".
func onNamespace(a privilege.Action) func(string, bson.D) []privilege.Need {
	return func(_ string, cmd bson.D) []privilege.Need {
		ns, _ := cmd[0].Value.(string)
		db, coll := splitNamespace(ns)
		return []privilege.Need{{DB: db, Coll: coll, Actions: a}}
	}
}

// onSettings: the balancer commands act on config.settings.
func onSettings(a privilege.Action) func(string, bson.D) []privilege.Need {
	return func(string, bson.D) []privilege.Need {
		return []privilege.Need{{DB: "config", Coll: "settings", Actions: a}}
	}
}

func splitNamespace(ns string) (db, coll string) {
	for i := 0; i < len(ns); i++ {
		if ns[i] == '.' {
			return ns[:i], ns[i+1:]
		}
	}
	return ns, ""
}

// checkPrivileges refuses c unless the union of users' privileges (from
// the user cache) grants what it needs.
func (r *Router) checkPrivileges(c *call, name string, users []userRef) error {
	needs, ok := routerNeeds(name, c.db, c.cmd)
	if ok {
		var set privilege.Set
		for _, u := range users {
			e, err := r.auth.users.get(c.ctx, u.db, u.user, false)
			if err != nil {
				return err
			}
			if len(users) == 1 {
				set = e.privs // read-only: no copy
				break
			}
			set = append(set, e.privs...)
		}
		if set.Allows(needs) {
			return nil
		}
	}
	return mongoerr.New(mongoerr.Unauthorized, "not authorized on %s to execute command { %s: %s }", c.db, c.cmd[0].Key, shortValue(c.cmd[0].Value))
}

// shortValue prints a command's first value for an error message.
func shortValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	s := fmt.Sprint(v)
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return s
}
