package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/failpoint"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The router's failGetMoreAfterCursorCheckout fail point, as mongos has
// one (its data node's twin is in package command): once a client's
// getMore has found its cursor, the getMore fails with data.errorCode
// (InternalError when absent) and the cursor is closed, as a cursor whose
// getMore threw is on mongos. On a change stream the error carries
// ResumableChangeStreamError when its code is resumable, so a driver
// resumes the stream.
//
// Invariants: the point is the router's own (Router.getMoreFail), never
// the process-wide one of package failpoint, so a router and data nodes
// sharing a process do not trip each other's; an unarmed point costs one
// atomic load per getMore.

// getMorePoint is the router's failGetMoreAfterCursorCheckout; its zero
// value is off.
type getMorePoint = failpoint.Point

// configureGetMoreFail arms or disarms the fail point; handled is false
// for any other fail point name.
func configureGetMoreFail(c *call, mode any, data bson.D) (handled bool, err error) {
	if name, _ := c.cmd[0].Value.(string); name != "failGetMoreAfterCursorCheckout" {
		return false, nil
	}
	return true, c.r.getMoreFail.Configure(mode, data)
}

// getMoreFailure is the fail point's error for the getMore of cursor id
// (closing the cursor) when the point acts now; nil otherwise.
func (r *Router) getMoreFailure(c *call, id int64) error {
	if !r.getMoreFail.On() {
		return nil
	}
	data, ok := r.getMoreFail.Check()
	if !ok {
		return nil
	}
	err := failpoint.GetMoreError(data)
	if mc := r.merged.get(id); mc != nil {
		isStream := mc.stream != nil // set once when opened
		r.killMerged(c, mc)
		if isStream && err.Code != mongoerr.CursorNotFound {
			return streamError(err) // changestream_merge_errors.go
		}
		return err
	}
	if e, found := r.cursors.lookup(id); found {
		coll, _ := bsonx.Get(c.cmd, "collection")
		_, _ = r.runOnCursorHost(c, e, bson.D{{Key: "killCursors", Value: coll}, {Key: "cursors", Value: bson.A{id}}})
		r.cursors.remove(id)
	}
	return err
}
