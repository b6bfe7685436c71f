package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// CheckStageNames refuses a pipeline naming a stage that does not exist
// (UnknownPipelineStage, 40324), without compiling it. mongod parses an
// update command's pipelines this far with the command (to learn the
// namespaces it involves), so an unknown stage fails the whole command
// rather than one statement; other problems are the statement's.
func CheckStageNames(pipeline bson.A) error {
	for _, raw := range pipeline {
		stage, ok := raw.(bson.D)
		if !ok || len(stage) != 1 {
			continue
		}
		if _, known := stageCompilers[stage[0].Key]; !known {
			return mongoerr.New(mongoerr.UnknownPipelineStage, "Unrecognized pipeline stage name: '%s'", stage[0].Key)
		}
	}
	return nil
}
