package changestream

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// maxEventSize is the largest event returned whole (and the largest
// fragment): MongoDB's 16 MB user document limit.
const maxEventSize = 16 * 1024 * 1024

// fragment is one part of a split event.
type fragment struct {
	token Token
	doc   bson.D
}

// splitEvent splits an event larger than maxEventSize into fragments, as
// $changeStreamSplitLargeEvent does: its top-level fields (never split
// themselves) in order, as many as fit in each fragment, each fragment
// opening with its own _id (the event's token with the fragment number)
// and splitEvent {fragment, of}. It returns nil for an event that fits,
// and BSONObjectTooLarge when one field alone does not fit a fragment.
func splitEvent(doc bson.D, t Token) ([]fragment, error) {
	raw, err := bson.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("changestream: encode event: %w", err)
	}
	if len(raw) <= maxEventSize {
		return nil, nil
	}
	overhead, err := fragmentOverhead(t)
	if err != nil {
		return nil, err
	}
	var groups [][]bson.E
	size := maxEventSize // forces a first group
	for _, f := range doc {
		if f.Key == "_id" {
			continue
		}
		n, err := elementSize(f)
		if err != nil {
			return nil, err
		}
		if overhead+n > maxEventSize {
			return nil, mongoerr.New(mongoerr.BSONObjectTooLarge,
				"BSONObj size: %d is invalid: the change event's field '%s' alone is over 16 MB and cannot be split", n, f.Key)
		}
		if size+n > maxEventSize {
			groups, size = append(groups, nil), overhead
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], f)
		size += n
	}
	out := make([]fragment, len(groups))
	for i, g := range groups {
		ft := t
		ft.Fragment = uint32(i + 1)
		out[i] = fragment{token: ft, doc: append(bson.D{{Key: "_id", Value: ft.Doc()},
			{Key: "splitEvent", Value: bson.D{{Key: "fragment", Value: int32(i + 1)}, {Key: "of", Value: int32(len(groups))}}}}, g...)}
	}
	return out, nil
}

// fragmentOverhead is the size of a fragment without its event fields.
func fragmentOverhead(t Token) (int, error) {
	t.Fragment = ^uint32(0)
	raw, err := bson.Marshal(bson.D{{Key: "_id", Value: t.Doc()},
		{Key: "splitEvent", Value: bson.D{{Key: "fragment", Value: int32(1 << 30)}, {Key: "of", Value: int32(1 << 30)}}}})
	return len(raw), err
}

// elementSize is the encoded size of one field.
func elementSize(f bson.E) (int, error) {
	raw, err := bson.Marshal(bson.D{f})
	if err != nil {
		return 0, fmt.Errorf("changestream: encode event field %s: %w", f.Key, err)
	}
	return len(raw) - 5, nil
}
