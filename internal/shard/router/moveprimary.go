package router

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// movePrimary ({movePrimary: "db", to: "shard"}, MongoDB 7.0's semantics)
// moves a database's unsharded collections (documents, indexes, options,
// views) from its primary shard to another and makes that shard the
// primary:
//  1. the old primary takes the database's critical section
//     (_shardsvrMovePrimaryEnterCriticalSection): versioned operations on
//     the database wait there, and those already admitted have finished;
//  2. the router copies each unsharded collection from the old primary to
//     the new one in batches (listCollections, listIndexes, find/getMore
//     on the donor; create, createIndexes, insert on the recipient, each
//     with the metadata write concern), renewing the section's lease;
//  3. it proves the section was never lost (entering again with the same
//     reason answers alreadyHeld) and commits config.databases {primary,
//     version.lastMod + 1} with a majority compare-and-swap;
//  4. it releases the section: the held operations re-read the database
//     entry, answer StaleDbVersion, and their routers resend them to the
//     new primary;
//  5. it drops the moved collections on the old primary.
// Sharded collections are not touched. A failure before the commit drops
// what was copied to the recipient and leaves the database where it was.
//
// TODO(#14): the copy goes through the router (MongoDB's recipient pulls
// it with _shardsvrCloneCatalogData). DDL (create, createIndexes, collMod,
// drop), transaction statements and $out/$merge go to the primary shard
// unversioned, so one sent during the move lands on the old primary (an
// index or collection made after the listing is left behind): routers
// should send them with databaseVersion and shards admit them through the
// database section. A timeseries collection's buckets are not moved. The
// operation is not resumed by another router if this one dies (the
// section ends at its lease, nothing committed).

// movePrimaryLease bounds the old primary's critical section between
// renewals (the section ends by itself if this router dies).
const movePrimaryLease = time.Minute

// renewEvery is how often the copy renews the section's lease.
const renewEvery = 10 * time.Second

func init() {
	localCommands["movePrimary"] = handler{fn: movePrimary, adminOnly: true}
	localCommands["moveprimary"] = handler{fn: movePrimary, adminOnly: true}
}

func movePrimary(c *call) (bson.D, error) {
	if err := c.useMetadataWriteConcern(); err != nil {
		return nil, err
	}
	db, _ := c.cmd[0].Value.(string)
	to, err := movePrimaryArgs(c.cmd, db)
	if err != nil {
		return nil, err
	}
	d, found, err := c.r.meta.Database(c.ctx, db)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "Database %s not found", db)
	}
	if _, err := c.r.shard(c.ctx, to); err != nil {
		return nil, err
	}
	if d.Primary == to {
		c.r.log.Info("movePrimary: the shard is already the primary", "db", db, "shard", to)
		return bson.D{}, nil
	}
	if err := c.r.movePrimary(c, d, to); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// movePrimaryArgs validates the database name and returns the target.
func movePrimaryArgs(cmd bson.D, db string) (string, error) {
	switch {
	case db == "" || strings.ContainsAny(db, "./\\ \"$"):
		return "", mongoerr.New(mongoerr.InvalidNamespace, "invalid db name specified: %s", db)
	case systemDB(db):
		return "", mongoerr.New(mongoerr.InvalidOptions, "Can't move primary for %s database", db)
	}
	v, ok := bsonx.Get(cmd, "to")
	if !ok {
		return "", mongoerr.New(mongoerr.IDLMissingField, "BSON field 'movePrimary.to' is missing but a required field")
	}
	to, isStr := v.(string)
	if !isStr {
		return "", mongoerr.New(mongoerr.TypeMismatch, "BSON field 'movePrimary.to' is the wrong type '%T', expected type 'string'", v)
	}
	if to == "" {
		return "", mongoerr.New(mongoerr.InvalidOptions, "you have to specify where you want to move it")
	}
	return to, nil
}

// primaryMove is one movePrimary in progress.
type primaryMove struct {
	r         *Router
	ctx       context.Context
	db        configsvr.Database
	to        string
	donor     *replSet
	recipient *replSet
	wc        bson.D // the write concern of every write it makes
	reason    bson.D // identifies its critical section
	renewed   time.Time
}

func (r *Router) movePrimary(c *call, d configsvr.Database, to string) error {
	donor, err := r.shard(c.ctx, d.Primary)
	if err != nil {
		return err
	}
	recipient, err := r.shard(c.ctx, to)
	if err != nil {
		return err
	}
	wc, err := configsvr.MajorityWriteConcern(c.cmd)
	if err != nil {
		return err
	}
	if wc == nil {
		wc = bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: int64(15000)}}
	}
	m := &primaryMove{r: r, ctx: c.ctx, db: d, to: to, donor: donor, recipient: recipient, wc: wc,
		reason: bson.D{{Key: "command", Value: "movePrimary"}, {Key: "db", Value: d.Name},
			{Key: "to", Value: to}, {Key: "id", Value: bson.NewObjectID()}}}
	return m.run()
}

func (m *primaryMove) run() error {
	if _, err := m.enter(); err != nil {
		return fmt.Errorf("movePrimary %s: entering the critical section on %s: %w", m.db.Name, m.db.Primary, err)
	}
	moved, err := m.clone()
	if err == nil {
		err = m.mustStillHold()
	}
	committing := err == nil
	if committing {
		err = m.commit()
	}
	m.exit()
	switch {
	case err != nil && committing && !mongoerr.Is(err, mongoerr.ConflictingOperationInProgress):
		// The commit's outcome is unknown: the copy may be the data now.
		m.r.log.Warn("movePrimary: commit outcome unknown; both copies kept", "db", m.db.Name, "err", err)
		return err
	case err != nil:
		m.dropAll(m.recipient, moved, "recipient")
		return err
	}
	m.r.log.Info("movePrimary: committed", "db", m.db.Name, "from", m.db.Primary, "to", m.to, "collections", len(moved))
	m.dropAll(m.donor, moved, "old primary")
	return nil
}

// enter takes (or renews) the section on the old primary.
func (m *primaryMove) enter() (alreadyHeld bool, err error) {
	cmd := bson.D{{Key: "_shardsvrMovePrimaryEnterCriticalSection", Value: m.db.Name},
		{Key: "reason", Value: m.reason}, {Key: "leaseMillis", Value: movePrimaryLease.Milliseconds()}}
	reply, err := m.donor.Run(m.ctx, "admin", cmd, true)
	if err != nil {
		return false, err
	}
	m.renewed = time.Now()
	v, _ := bsonx.Get(reply, "alreadyHeld")
	b, _ := v.(bool)
	return b, nil
}

// renew renews the lease when renewEvery has passed.
func (m *primaryMove) renew() error {
	if time.Since(m.renewed) < renewEvery {
		return nil
	}
	return m.mustStillHold()
}

// mustStillHold renews the section, failing if it was lost meanwhile
// (its lease ended: operations may have written on the old primary).
func (m *primaryMove) mustStillHold() error {
	held, err := m.enter()
	if err == nil && !held {
		err = mongoerr.New(mongoerr.ExceededTimeLimit, "movePrimary %s: the critical section on %s ended before the commit", m.db.Name, m.db.Primary)
	}
	return err
}

// commit records the new primary (the section is known to be held).
func (m *primaryMove) commit() error {
	ctx := configsvr.WithWriteConcern(m.ctx, m.wc)
	_, err := m.r.meta.CommitMovePrimary(ctx, m.db.Name, m.db.Primary, m.to, m.db.Version)
	m.r.mu.Lock()
	delete(m.r.mu.dbs, m.db.Name)
	m.r.mu.Unlock()
	return err
}

// exit releases the section (even when the client has gone away).
func (m *primaryMove) exit() {
	ctx, cancel := context.WithTimeout(context.Background(), exitTimeout)
	defer cancel()
	cmd := bson.D{{Key: "_shardsvrMovePrimaryExitCriticalSection", Value: m.db.Name}, {Key: "reason", Value: m.reason}}
	if _, err := m.donor.Run(ctx, "admin", cmd, true); err != nil {
		m.r.log.Warn("movePrimary: critical section not released; its lease will end it", "db", m.db.Name, "shard", m.db.Primary, "err", err)
	}
}

// dropAll drops colls of the database on s (best effort: what is left is
// logged, as MongoDB leaves a failed cleanup to the operator).
func (m *primaryMove) dropAll(s *replSet, colls []string, which string) {
	ctx, cancel := context.WithTimeout(context.Background(), exitTimeout)
	defer cancel()
	for _, name := range colls {
		cmd := bson.D{{Key: "drop", Value: name}, {Key: "writeConcern", Value: m.wc}}
		if _, err := s.Run(ctx, m.db.Name, cmd, true); err != nil && !mongoerr.Is(err, mongoerr.NamespaceNotFound) {
			m.r.log.Warn("movePrimary: cannot drop a moved collection", "ns", m.db.Name+"."+name, "on", which, "err", err)
		}
	}
}
