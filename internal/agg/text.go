package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// matchText decides the $text of a $match: in a pipeline's first stage
// the executor already applied it when it read the collection
// (Pipeline.FirstMatch), so every document reaching the stage passes;
// elsewhere it is Location17313, as in MongoDB.
// TODO(#14): {$meta: "textScore"} in $project, $addFields and $sort.
func matchText(filter bson.D, cc *compileCtx) (query.TextFunc, error) {
	if _, _, n := query.TextClause(filter); n == 0 {
		return nil, nil
	}
	if !cc.first {
		return nil, mongoerr.New(mongoerr.TextMatchNotFirst, "$match with $text is only allowed as the first pipeline stage")
	}
	return func(bson.D) bool { return true }, nil
}
