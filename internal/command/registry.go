package command

import (
	"sort"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Handler runs a command and returns the reply's fields (without ok).
type Handler func(c *Ctx) (bson.D, error)

// Command is one entry in the registry.
type Command struct {
	Name    string
	Help    string
	Handler Handler
	// AdminOnly commands must be sent to the admin database.
	AdminOnly bool
	// Fields lists the command-specific fields accepted besides the command
	// name and the generic fields every command takes. nil = not checked.
	Fields []string
	// Write commands need a writable primary (on a replica set).
	Write bool
	// AfterWrite, when set and true for a request, makes the dispatcher
	// apply the request's writeConcern once the handler has succeeded,
	// waiting on every write made so far (catalog.LastWrite). DDL uses it;
	// insert, update, delete and findAndModify wait on their own
	// WriteResult instead and leave it nil.
	AfterWrite func(cmd bson.D) bool
	// Read commands need a primary, or a secondary when the client's read
	// preference allows it (secondaryOk).
	Read bool

	calls, failed atomic.Int64 // for serverStatus metrics.commands
}

var registry = map[string]*Command{}

// always is AfterWrite for commands that write on every call.
func always(bson.D) bool { return true }

// register adds commands at init time; aliases share the entry.
func register(c *Command, aliases ...string) {
	if _, dup := registry[c.Name]; dup {
		panic("command registered twice: " + c.Name)
	}
	registry[c.Name] = c
	for _, a := range aliases {
		registry[a] = c
	}
}

// Names returns the registered command names in sorted order.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n, c := range registry {
		if n == c.Name {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// genericFields are accepted by every command (MongoDB's generic arguments).
var genericFields = map[string]bool{
	"$db": true, "lsid": true, "txnNumber": true, "$clusterTime": true,
	"$readPreference": true, "readConcern": true, "writeConcern": true,
	"comment": true, "maxTimeMS": true, "apiVersion": true, "apiStrict": true,
	"apiDeprecationErrors": true, "autocommit": true, "startTransaction": true,
	"$audit": true, "$client": true, "$configServerState": true,
	"$gleStats": true, "$oplogQueryData": true, "$replData": true,
	"mayBypassWriteConcern": true, "databaseVersion": true, "shardVersion": true,
	"clientOperationKey": true, "$queryOptions": true, "versionContext": true,
}
