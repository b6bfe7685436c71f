package agg

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestCheckStageNames(t *testing.T) {
	for _, tc := range []struct {
		pipeline bson.A
		code     mongoerr.Code
	}{
		{bson.A{bson.D{{Key: "$set", Value: bson.D{}}}, bson.D{{Key: "$match", Value: bson.D{}}}}, 0},
		{bson.A{bson.D{{Key: "$set", Value: bson.D{}}}, bson.D{{Key: "$nope", Value: 1}}}, mongoerr.UnknownPipelineStage},
		{bson.A{"not a stage", bson.D{}}, 0}, // left to the compiler
	} {
		err := CheckStageNames(tc.pipeline)
		if got := codeOf(err); got != tc.code {
			t.Errorf("CheckStageNames(%v) = %v, want code %d", tc.pipeline, err, tc.code)
		}
	}
}

func codeOf(err error) mongoerr.Code {
	if err == nil {
		return 0
	}
	return mongoerr.From(err).Code
}
