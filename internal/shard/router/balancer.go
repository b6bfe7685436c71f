package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

func init() {
	localCommands["balancerStatus"] = handler{fn: balancerStatus, adminOnly: true}
	localCommands["balancerStart"] = handler{fn: balancerMode("full"), adminOnly: true}
	localCommands["balancerStop"] = handler{fn: balancerMode("off"), adminOnly: true}
}

// balancerStatus answers as a cluster whose balancer is off: relaydb has
// no balancer yet (issue #12), whatever config.settings says.
// TODO(#12): report the balancer's mode and rounds once it exists.
func balancerStatus(*call) (bson.D, error) {
	return bson.D{
		{Key: "mode", Value: "off"},
		{Key: "inBalancerRound", Value: false},
		{Key: "numBalancerRounds", Value: int64(0)},
	}, nil
}

// balancerMode is balancerStart ("full") and balancerStop ("off"), as
// sh.startBalancer/sh.stopBalancer send them: the mode is recorded in
// config.settings (sh.getBalancerState and sh.status read it), where the
// balancer of #12 will find it; nothing balances before then.
func balancerMode(mode string) func(c *call) (bson.D, error) {
	return func(c *call) (bson.D, error) {
		if err := c.useMetadataWriteConcern(); err != nil {
			return nil, err
		}
		return bson.D{}, c.r.meta.SetBalancerMode(c.ctx, mode)
	}
}
