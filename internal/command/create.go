package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// unsupportedCreate lists create options relaydb refuses rather than ignores.
var unsupportedCreate = map[string]string{
	"encryptedFields": "queryable encryption",
}

func create(c *Ctx, p *request.Create) (bson.D, error) {
	coll := string(p.Collection)
	if p.ViewOn != nil {
		return createView(c, coll)
	}
	if p.Timeseries != nil {
		return createTimeseries(c, coll)
	}
	if p.Pipeline != nil {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "'pipeline' requires 'viewOn' to also be specified")
	}
	opts := bson.D{}
	for _, e := range c.Cmd[1:] {
		if what, bad := unsupportedCreate[e.Key]; bad {
			if b, isBool := e.Value.(bool); isBool && !b {
				continue
			}
			return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support %s yet (create option '%s')", what, e.Key)
		}
		if e.Key == "changeStreamPreAndPostImages" {
			if err := checkPreAndPostImages("create", e.Value); err != nil { // changestream_images.go
				return nil, err
			}
		}
		if validationOptions[e.Key] {
			if err := checkValidationOption(e); err != nil {
				return nil, err
			}
		}
		if e.Key == "collation" {
			spec, err := createCollation(e.Value)
			if err != nil {
				return nil, err
			}
			if spec == nil {
				continue // the simple collation is the default: not stored
			}
			e.Value = spec.Doc() // stored and listed in full
		}
		if !cmdspec.IsGeneric(e.Key) {
			opts = append(opts, e)
		}
	}
	opts, err := cappedOptions(opts)
	if err != nil {
		return nil, err
	}
	if opts, err = clusteredOptions(opts); err != nil {
		return nil, err
	}
	if _, err := c.D.eng.Catalog().CreateCollection(c.DB, coll, opts); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
