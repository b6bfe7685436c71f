package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// validate checks a collection's documents against its index entries and
// counters (catalog.Validate, the check of `relaydb tool verify`) and
// answers in MongoDB's shape. Problems are reported as errors with valid:
// false; relaydb does not repair (repair: true is refused).
func validate(c *Ctx, p *request.Validate) (bson.D, error) {
	if lenient(p.Repair) || lenient(p.Metadata) {
		// TODO(#14): validate repair and metadata modes.
		return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb's validate does not support repair or metadata")
	}
	if lenient(p.Background) && lenient(p.Full) {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "Running the validate command with both { background: true } and { full: true } is not supported.")
	}
	coll := string(p.Collection)
	col := c.D.eng.Catalog().Collection(c.DB, coll)
	if col == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "Collection '%s' does not exist to validate.", c.ns(coll))
	}
	res, err := c.D.eng.Catalog().Validate(col)
	if err != nil {
		return nil, err
	}
	keys, details := bson.D{}, bson.D{}
	for _, k := range res.KeysPerIndex {
		keys = append(keys, bson.E{Key: k.Name, Value: k.Keys})
		details = append(details, bson.E{Key: k.Name, Value: bson.D{{Key: "valid", Value: len(res.Problems) == 0}}})
	}
	errs := bson.A{}
	for _, pr := range res.Problems {
		errs = append(errs, pr)
	}
	return bson.D{
		{Key: "ns", Value: c.ns(coll)},
		{Key: "nInvalidDocuments", Value: int64(0)},
		{Key: "nNonCompliantDocuments", Value: int64(0)},
		{Key: "nrecords", Value: res.NRecords},
		{Key: "nIndexes", Value: int32(len(res.KeysPerIndex))},
		{Key: "keysPerIndex", Value: keys},
		{Key: "indexDetails", Value: details},
		{Key: "valid", Value: len(res.Problems) == 0},
		{Key: "repaired", Value: false},
		{Key: "warnings", Value: bson.A{}},
		{Key: "errors", Value: errs},
		{Key: "extraIndexEntries", Value: bson.A{}},
		{Key: "missingIndexEntries", Value: bson.A{}},
		{Key: "corruptRecords", Value: bson.A{}},
	}, nil
}
