package command

import (
	"fmt"
	"reflect"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Handler runs a command and returns the reply's fields (without ok).
type Handler func(c *Ctx) (bson.D, error)

// Command is one entry of the command table (commands.go).
type Command struct {
	Name    string
	Aliases []string
	Help    string
	// Def is the command's typed definition: typed(handler) with the
	// request struct the handler takes.
	Def def
	// AdminOnly commands must be sent to the admin database.
	AdminOnly bool
	// Read commands run on a secondary only when the client's read
	// preference allows it (secondaryOk).
	Read bool
	// AfterWrite, when set and true for a request, makes the dispatcher
	// apply the request's writeConcern once the handler has succeeded,
	// waiting on every write made so far (catalog.LastWrite). DDL uses it;
	// insert, update, delete and findAndModify wait on their own
	// WriteResult instead and leave it nil.
	AfterWrite func(cmd bson.D) bool

	// Write commands need a writable primary: their struct's roles name
	// no secondary. Set from the spec when the table is loaded.
	Write bool

	calls, failed atomic.Int64 // for serverStatus metrics.commands
}

// def is a command's request struct (its spec) and its handler.
type def struct {
	spec  *cmdspec.Spec
	run   Handler
	alloc func() any // returns a new request struct
}

// newRequest returns a new, empty request struct of c (a pointer).
func newRequest(c *Command) any { return c.Def.alloc() }

// typed returns the definition of a command whose handler takes the
// request decoded into T, a struct embedding cmdspec.Cmd. When T's first
// value is a cmdspec.CollName, the name is checked against the request's
// database before the handler runs.
func typed[T any](fn func(*Ctx, *T) (bson.D, error)) def {
	spec := cmdspec.For(new(T))
	names := spec.CommandType() == reflect.TypeFor[cmdspec.CollName]()
	return def{spec: spec, run: func(c *Ctx) (bson.D, error) {
		p := new(T)
		if err := cmdspec.Decode(c.Cmd, p); err != nil {
			return nil, err
		}
		if names {
			if _, err := c.collName(cmdspec.CollName(c.Cmd[0].Value.(string))); err != nil {
				return nil, err
			}
		}
		return fn(c, p)
	}, alloc: func() any { return new(T) }}
}

// registry maps every command name and alias to its table entry; table
// is the command table in sorted order. Both are set from commands at init
// (handlers such as listCommands read them, so they cannot be initialised
// from commands directly).
var (
	registry map[string]*Command
	table    []*Command
)

func init() {
	registry, table = load(commands), commands
}

func load(table []*Command) map[string]*Command {
	m := map[string]*Command{}
	for i, c := range table {
		if i > 0 && table[i-1].Name >= c.Name {
			panic(fmt.Sprintf("command table not sorted at %s", c.Name))
		}
		if c.Def.spec.Name != c.Name {
			panic(fmt.Sprintf("command %s has the struct of %s", c.Name, c.Def.spec.Name))
		}
		c.Write = !c.Def.spec.Roles.Has(cmdspec.RoleSecondary)
		for _, n := range append([]string{c.Name}, c.Aliases...) {
			if m[n] != nil {
				panic("command registered twice: " + n)
			}
			m[n] = c
		}
	}
	return m
}

// Names returns the command names in sorted order (aliases left out).
func Names() []string {
	names := make([]string, 0, len(table))
	for _, c := range table {
		names = append(names, c.Name)
	}
	return names
}
