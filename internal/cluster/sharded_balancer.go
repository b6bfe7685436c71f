package cluster

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BalancerStatus is the balancer's state on the config server primary
// (_configsvrBalancerStatus), as `relaydb cluster status` shows it.
type BalancerStatus struct {
	Mode      string   `bson:"mode"`
	InRound   bool     `bson:"inBalancerRound"`
	Rounds    int64    `bson:"numBalancerRounds"`
	LastError string   `bson:"lastError"`
	LastMoves []string `bson:"lastMoves"`
}

// Balancer asks the config server primary for the balancer's state.
func (sc *Sharded) Balancer(ctx context.Context) (BalancerStatus, error) {
	p, err := sc.Config.WaitPrimary(ctx)
	if err != nil {
		return BalancerStatus{}, fmt.Errorf("cluster: config server primary: %w", err)
	}
	cl, err := sc.Config.Client(p)
	if err != nil {
		return BalancerStatus{}, err
	}
	var st BalancerStatus
	err = cl.Database("admin").RunCommand(ctx, bson.D{{Key: "_configsvrBalancerStatus", Value: 1}}).Decode(&st)
	if err != nil {
		return BalancerStatus{}, fmt.Errorf("cluster: _configsvrBalancerStatus: %w", err)
	}
	return st, nil
}
