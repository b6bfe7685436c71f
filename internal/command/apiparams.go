package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The Stable API parameters (apiVersion, apiStrict, apiDeprecationErrors)
// as mongod checks them on every command: apiStrict or
// apiDeprecationErrors need apiVersion, the only version is "1", and
// apiStrict: true refuses a command outside API Version 1. relaydb has no
// deprecated commands in V1, so apiDeprecationErrors changes nothing.

// apiV1 is MongoDB 7.0's API Version 1 command set.
var apiV1 = map[string]bool{
	"abortTransaction": true, "aggregate": true, "authenticate": true, "collMod": true,
	"commitTransaction": true, "count": true, "create": true, "createIndexes": true,
	"delete": true, "drop": true, "dropDatabase": true, "dropIndexes": true,
	"endSessions": true, "explain": true, "find": true, "findAndModify": true, "getMore": true,
	"hello": true, "insert": true, "killCursors": true, "listCollections": true,
	"listDatabases": true, "listIndexes": true, "ping": true, "refreshSessions": true,
	"saslContinue": true, "saslStart": true, "update": true,
	"testVersion1": true, // mongod's test command in API Version 1
}

// checkAPIParams applies the Stable API parameters of ctx's command.
func checkAPIParams(ctx *Ctx) error { return CheckAPIParams(ctx.Name, ctx.Cmd) }

// CheckAPIParams applies the Stable API parameters of command name (its
// own name, not an alias) sent as cmd; data nodes and routers call it.
func CheckAPIParams(name string, cmd bson.D) error {
	version, hasVersion := bsonx.Get(cmd, "apiVersion")
	strictV, hasStrict := bsonx.Get(cmd, "apiStrict")
	deprV, hasDepr := bsonx.Get(cmd, "apiDeprecationErrors")
	strict, err := apiBool("apiStrict", strictV, hasStrict)
	if err != nil {
		return err
	}
	depr, err := apiBool("apiDeprecationErrors", deprV, hasDepr)
	if err != nil {
		return err
	}
	if !hasVersion {
		if strict {
			return mongoerr.New(mongoerr.APIStrictWithoutVersion, "Provided apiStrict without passing apiVersion")
		}
		if depr {
			return mongoerr.New(mongoerr.APIDeprecationWithoutVersion, "Provided apiDeprecationErrors without passing apiVersion")
		}
		return nil
	}
	s, isStr := version.(string)
	if !isStr {
		return cmdspec.TypeError("APIParametersFromClient.apiVersion", version, "string")
	}
	if s != "1" {
		return mongoerr.New(mongoerr.APIVersionError, "API version must be \"1\"")
	}
	if strict && !apiV1[name] {
		return mongoerr.New(mongoerr.APIStrictError, "Provided apiStrict:true, but the command %s is not in API Version 1", name)
	}
	if strict && name == "aggregate" {
		return checkAPIStages(cmd)
	}
	return nil
}

// stagesOutsideV1 are the aggregation stages API Version 1 leaves out.
var stagesOutsideV1 = map[string]bool{
	"$collStats": true, "$currentOp": true, "$indexStats": true, "$listLocalSessions": true,
	"$listSessions": true, "$planCacheStats": true, "$search": true, "$searchMeta": true,
	"$listSearchIndexes": true,
}

// checkAPIStages refuses, under apiStrict, a pipeline stage outside API
// Version 1 (top level only: TODO(#14) sub-pipelines).
func checkAPIStages(cmd bson.D) error {
	v, _ := bsonx.Get(cmd, "pipeline")
	stages, _ := v.(bson.A)
	for _, s := range stages {
		if d, ok := s.(bson.D); ok && len(d) > 0 && stagesOutsideV1[d[0].Key] {
			return mongoerr.New(mongoerr.APIStrictError, "%s is not allowed with 'apiStrict: true' in API Version 1", d[0].Key)
		}
	}
	return nil
}

// apiBool reads apiStrict or apiDeprecationErrors (false when absent).
func apiBool(name string, v any, present bool) (bool, error) {
	if !present {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, cmdspec.TypeError("APIParametersFromClient."+name, v, "bool")
	}
	return b, nil
}
