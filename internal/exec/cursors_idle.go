package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Idle describes the open cursors no getMore is using, as $currentOp
// {idleCursors: true} lists them: {type: "idleCursor", host, ns, cursor:
// {cursorId, lastAccessDate, nDocsReturned, tailable, awaitData}}. A
// cursor in use is skipped (its getMore is a running operation).
func (cs *Cursors) Idle(host string) []bson.D {
	cs.mu.Lock()
	all := make([]*Cursor, 0, len(cs.byID))
	for _, c := range cs.byID {
		all = append(all, c)
	}
	cs.mu.Unlock()
	var out []bson.D
	for _, c := range all {
		if !c.mu.TryLock() {
			continue
		}
		doc := bson.D{{Key: "type", Value: "idleCursor"}, {Key: "host", Value: host}, {Key: "ns", Value: c.NS},
			{Key: "cursor", Value: bson.D{
				{Key: "cursorId", Value: c.ID},
				{Key: "lastAccessDate", Value: bson.NewDateTimeFromTime(c.lastUse)},
				{Key: "nDocsReturned", Value: c.sent},
				{Key: "tailable", Value: c.Tailable},
				{Key: "awaitData", Value: c.AwaitData},
			}}}
		c.mu.Unlock()
		out = append(out, doc)
	}
	return out
}
