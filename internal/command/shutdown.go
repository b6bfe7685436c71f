package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func shutdown(c *Ctx, _ *request.Shutdown) (bson.D, error) {
	if c.D.info.Shutdown == nil {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "shutdown is not available")
	}
	c.D.log.Info("shutdown command received", "conn", c.Conn.ID)
	go c.D.info.Shutdown()
	return bson.D{}, nil
}
