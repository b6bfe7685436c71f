package command

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// DBSectioner is implemented by a shard's ShardVersioner (shardsvr.State):
// movePrimary's database critical section (shardsvr/dbcritsec.go).
type DBSectioner interface {
	EnterDBCriticalSection(ctx context.Context, db, reason string, lease time.Duration) (alreadyHeld bool, err error)
	ExitDBCriticalSection(db, reason string)
}

func dbSectioner(c *Ctx, cmd string) (DBSectioner, error) {
	g, ok := c.D.shardVersioner.(DBSectioner)
	if !ok {
		return nil, mongoerr.New(mongoerr.ShardingStateNotInitialized, "%s needs a shard (--shardsvr)", cmd)
	}
	return g, nil
}

// checkDBName refuses an empty database name or one with a dot.
func checkDBName(db string) error {
	if db == "" || containsAny(db, "./\\ \"$") {
		return mongoerr.New(mongoerr.InvalidNamespace, "invalid database name '%s'", db)
	}
	return nil
}

func containsAny(s, chars string) bool {
	for _, r := range s {
		for _, c := range chars {
			if r == c {
				return true
			}
		}
	}
	return false
}

// reasonKey identifies a section by its reason document.
func reasonKey(reason bson.D) string { return fmt.Sprint(reason) }

// shardsvrMovePrimaryEnterCriticalSection takes (or renews) the database's
// critical section on this shard's primary: movePrimary's writes wait.
func shardsvrMovePrimaryEnterCriticalSection(c *Ctx, r *request.ShardsvrMovePrimaryEnterCriticalSection) (bson.D, error) {
	g, err := dbSectioner(c, "_shardsvrMovePrimaryEnterCriticalSection")
	if err != nil {
		return nil, err
	}
	if err := checkDBName(r.DB); err != nil {
		return nil, err
	}
	if c.D.repl != nil {
		if err := c.D.repl.CheckWrite("admin"); err != nil {
			return nil, err
		}
	}
	lease := defaultLease
	if r.LeaseMillis != nil {
		lease = time.Duration(*r.LeaseMillis) * time.Millisecond
	}
	ctx, cancel := c.replContext()
	defer cancel()
	already, err := g.EnterDBCriticalSection(ctx, r.DB, reasonKey(r.Reason), lease)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "alreadyHeld", Value: already}}, nil
}

// shardsvrMovePrimaryExitCriticalSection releases it.
func shardsvrMovePrimaryExitCriticalSection(c *Ctx, r *request.ShardsvrMovePrimaryExitCriticalSection) (bson.D, error) {
	g, err := dbSectioner(c, "_shardsvrMovePrimaryExitCriticalSection")
	if err != nil {
		return nil, err
	}
	if err := checkDBName(r.DB); err != nil {
		return nil, err
	}
	g.ExitDBCriticalSection(r.DB, reasonKey(r.Reason))
	return bson.D{}, nil
}
