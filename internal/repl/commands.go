package repl

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// The replSet* commands, as package command's table dispatches them
// (command.ReplSetCommands).

// ReplSetInitiate runs replSetInitiate.
func (c *Coordinator) ReplSetInitiate(cmd bson.D) (bson.D, error) { return c.initiate(cmd) }

// ReplSetGetConfig runs replSetGetConfig.
func (c *Coordinator) ReplSetGetConfig() (bson.D, error) { return c.getConfig() }

// ReplSetReconfig runs replSetReconfig.
func (c *Coordinator) ReplSetReconfig(cmd bson.D) (bson.D, error) { return c.reconfig(cmd) }

// ReplSetGetStatus runs replSetGetStatus.
func (c *Coordinator) ReplSetGetStatus() (bson.D, error) { return c.status() }

// ReplSetStepDown runs replSetStepDown, waiting until ctx ends at most.
func (c *Coordinator) ReplSetStepDown(ctx context.Context, cmd bson.D) (bson.D, error) {
	return c.stepDown(ctx, cmd)
}

// ReplSetFreeze runs replSetFreeze.
func (c *Coordinator) ReplSetFreeze(cmd bson.D) (bson.D, error) { return c.freeze(cmd) }

// ReplSetSyncFrom runs replSetSyncFrom.
func (c *Coordinator) ReplSetSyncFrom(cmd bson.D) (bson.D, error) { return c.syncFrom(cmd) }

// ReplSetMaintenance runs replSetMaintenance.
func (c *Coordinator) ReplSetMaintenance(cmd bson.D) (bson.D, error) { return c.maintenanceCmd(cmd) }

// ReplSetHeartbeat answers a member's heartbeat.
func (c *Coordinator) ReplSetHeartbeat(cmd bson.D) (bson.D, error) { return c.handleHeartbeat(cmd) }

// ReplSetRequestVotes answers a candidate's vote request.
func (c *Coordinator) ReplSetRequestVotes(cmd bson.D) (bson.D, error) {
	return c.handleRequestVotes(cmd)
}

// ReplSetUpdatePosition records downstream members' positions.
func (c *Coordinator) ReplSetUpdatePosition(cmd bson.D) (bson.D, error) {
	return c.handleUpdatePosition(cmd)
}

func notInitialized() error {
	return mongoerr.New(mongoerr.NotYetInitialized, "no replset config has been received")
}

// initiate handles replSetInitiate; without a config document it uses a
// one-member set of this host. A new set whose config says nothing about
// chaining gets settings.chainingMode "auto" (issue #5: the chaining
// experiment shows auto at least as fast as the better of chaining on and
// off in every topology, at chaining-on's primary cost); an explicit
// chainingAllowed or chainingMode is kept as given.
func (c *Coordinator) initiate(cmd bson.D) (bson.D, error) {
	cfg := topology.NewConfig(c.opts.SetName, topology.NewMember(0, c.opts.Self))
	cfg.Settings.ChainingMode = "auto"
	if doc, ok := cmd[0].Value.(bson.D); ok && len(doc) > 0 {
		var err error
		if cfg, err = parseConfig(doc); err != nil {
			return nil, err
		}
		if !mentionsChaining(doc) {
			cfg.Settings.ChainingMode = "auto"
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.topo != nil {
		return nil, mongoerr.New(codeAlreadyInitialized, "already initialized")
	}
	if cfg.Name != c.opts.SetName {
		return nil, badConfig("Attempting to initiate a replica set with name %s, but command line reports %s; rejecting",
			cfg.Name, c.opts.SetName)
	}
	if err := c.checkConfig(cfg); err != nil {
		return nil, err
	}
	if _, err := c.cat.WriteNoop(bson.D{{Key: "msg", Value: "initiating set"}}); err != nil {
		return nil, err
	}
	if err := c.installConfigLocked(cfg); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// checkConfig validates cfg and that it names this member.
func (c *Coordinator) checkConfig(cfg topology.Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.MemberByHost(c.opts.Self) < 0 {
		return mongoerr.New(mongoerr.NodeNotFound,
			"No host described in new configuration with {version: %d, term: %d} for replica set %s maps to this node",
			cfg.Version, cfg.Term, cfg.Name)
	}
	return nil
}

func (c *Coordinator) getConfig() (bson.D, error) {
	s := c.load()
	if !s.hasConfig {
		return nil, notInitialized()
	}
	return bson.D{{Key: "config", Value: configDoc(s.cfg)}}, nil
}

// reconfig handles replSetReconfig: a writable primary installs a config
// of a higher version, stamped with its term; force installs any valid
// config on any member with a much higher version.
func (c *Coordinator) reconfig(cmd bson.D) (bson.D, error) {
	doc, ok := cmd[0].Value.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "replSetReconfig argument must be an object")
	}
	force, _ := bsonx.Get(cmd, "force")
	cfg, err := parseConfig(doc)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.topo == nil {
		return nil, notInitialized()
	}
	cur := c.mu.topo.Config()
	switch {
	case truthy(force):
		cfg.Version, cfg.Term = cur.Version+10000+int64(c.now().UnixNano()%10000), cur.Term
	case !c.load().writable:
		return nil, mongoerr.New(mongoerr.NotWritablePrimary,
			"replSetReconfig should only be run on a writable PRIMARY. Current state %s;", c.mu.topo.State())
	case cfg.Version <= cur.Version:
		return nil, mongoerr.New(codeNewReplicaSetConfigurationIncompatible,
			"New config is rejected: its version %d is not greater than the current version %d", cfg.Version, cur.Version)
	default:
		cfg.Term = c.mu.topo.Term()
	}
	if cfg.Name != cur.Name {
		return nil, mongoerr.New(codeNewReplicaSetConfigurationIncompatible,
			"New and old configurations differ in replica set name; old was %s, and new is %s", cur.Name, cfg.Name)
	}
	if err := c.checkConfig(cfg); err != nil {
		return nil, err
	}
	// TODO(#4): MongoDB also requires the previous config to be committed
	// and allows only one voter added or removed per non-force reconfig.
	if err := c.installConfigLocked(cfg); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// stepDown handles replSetStepDown: it waits for the outcome (a caught-up
// electable secondary, force at the deadline, or failure).
func (c *Coordinator) stepDown(ctx context.Context, cmd bson.D) (bson.D, error) {
	secs := int64(60)
	if n, ok := bsonx.AsInt64(cmd[0].Value); ok && n > 0 {
		secs = n
	}
	force, _ := bsonx.Get(cmd, "force")
	catchUp := int64(10)
	if truthy(force) {
		catchUp = 0 // MongoDB's default with force: step down at once
	}
	if v, ok := bsonx.Get(cmd, "secondaryCatchUpPeriodSecs"); ok {
		catchUp, _ = bsonx.AsInt64(v)
	}
	ch := make(chan error, 1)
	c.mu.Lock()
	if c.mu.topo == nil {
		c.mu.Unlock()
		return nil, mongoerr.New(mongoerr.NotWritablePrimary, "not primary so can't step down")
	}
	if c.mu.stepWait != nil {
		c.mu.Unlock()
		return nil, mongoerr.New(mongoerr.ConflictingOperationInProgress, "a replSetStepDown is already in progress")
	}
	c.mu.stepWait = ch
	acts, err := c.mu.topo.StepDownRequest(c.now(), truthy(force), time.Duration(secs)*time.Second, time.Duration(catchUp)*time.Second)
	if err != nil {
		c.mu.stepWait = nil
		c.mu.Unlock()
		return nil, err
	}
	c.applyLocked(acts)
	c.publishLocked()
	c.mu.Unlock()
	select {
	case err := <-ch:
		return bson.D{}, err
	case <-ctx.Done():
		return nil, mongoerr.New(mongoerr.ExceededTimeLimit, "replSetStepDown: operation exceeded time limit")
	}
}

func (c *Coordinator) freeze(cmd bson.D) (bson.D, error) {
	secs, _ := bsonx.AsInt64(cmd[0].Value)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.topo == nil {
		return nil, notInitialized()
	}
	acts, err := c.mu.topo.Freeze(c.now(), time.Duration(secs)*time.Second)
	if err != nil {
		return nil, err
	}
	c.applyLocked(acts)
	c.publishLocked()
	if secs == 0 {
		return bson.D{{Key: "info", Value: "unfreezing"}}, nil
	}
	return bson.D{}, nil
}

func (c *Coordinator) syncFrom(cmd bson.D) (bson.D, error) {
	host, ok := cmd[0].Value.(string)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "replSetSyncFrom argument must be a host string")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.topo == nil {
		return nil, notInitialized()
	}
	prev, acts, err := c.mu.topo.SyncFromRequest(c.now(), host)
	if err != nil {
		return nil, err
	}
	c.applyLocked(acts)
	c.publishLocked()
	reply := bson.D{{Key: "syncFromRequested", Value: host}}
	if i := c.mu.topo.Config().MemberIndex(prev); i >= 0 {
		reply = append(reply, bson.E{Key: "prevSyncTarget", Value: c.mu.topo.Config().Members[i].Host})
	}
	return reply, nil
}

// maintenanceCmd handles replSetMaintenance: calls nest; the member is
// RECOVERING while any is active.
func (c *Coordinator) maintenanceCmd(cmd bson.D) (bson.D, error) {
	on := truthy(cmd[0].Value)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.topo == nil {
		return nil, notInitialized()
	}
	switch st := c.mu.topo.State(); {
	case st == topology.StatePrimary:
		return nil, mongoerr.New(mongoerr.NotSecondary, "primaries can't modify maintenance mode")
	case !on && c.mu.maintenance == 0:
		return nil, mongoerr.New(mongoerr.OperationFailed, "already out of maintenance mode")
	case on:
		c.mu.maintenance++
		c.eventLocked(func(now time.Time) []topology.Action {
			return c.mu.topo.SetFollowerState(now, topology.StateRecovering)
		})
	default:
		c.mu.maintenance--
		if c.mu.maintenance == 0 {
			c.eventLocked(func(now time.Time) []topology.Action {
				return c.mu.topo.SetFollowerState(now, topology.StateSecondary)
			})
		}
	}
	return bson.D{}, nil
}

// mentionsChaining reports whether a config document sets
// settings.chainingAllowed or settings.chainingMode.
func mentionsChaining(doc bson.D) bool {
	settings, _ := bsonx.Get(doc, "settings")
	d, _ := settings.(bson.D)
	for _, f := range d {
		if f.Key == "chainingAllowed" || f.Key == "chainingMode" {
			return true
		}
	}
	return false
}
