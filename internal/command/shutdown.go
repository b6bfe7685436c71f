package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Shutdown is the shutdown command; force and timeoutSecs are accepted
// (relaydb always shuts down gracefully).
type Shutdown struct {
	cmdspec.Cmd `cmd:"shutdown" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

func shutdown(c *Ctx, _ *Shutdown) (bson.D, error) {
	if c.D.info.Shutdown == nil {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "shutdown is not available")
	}
	c.D.log.Info("shutdown command received", "conn", c.Conn.ID)
	go c.D.info.Shutdown()
	return bson.D{}, nil
}
