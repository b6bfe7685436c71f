package configsvr

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// SetBalancerMode records the balancer's mode in config.settings as
// balancerStart/balancerStop do: {_id: "balancer", mode: "full"|"off",
// stopped: mode == "off"}, upserted with w:"majority". Repeating it is
// harmless. sh.getBalancerState() and sh.status() read it back.
func (c *Catalog) SetBalancerMode(ctx context.Context, mode string) error {
	if mode != "full" && mode != "off" {
		return fmt.Errorf("configsvr: balancer mode %q is not full or off", mode)
	}
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "update", Value: SettingsColl},
		{Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: "balancer"}}},
			{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "mode", Value: mode}, {Key: "stopped", Value: mode == "off"}}}}},
			{Key: "upsert", Value: true},
		}}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	if err != nil {
		return err
	}
	return WriteError(reply)
}
