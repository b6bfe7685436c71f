package harness

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// FailingPartition returns the operations of the first partition of ops
// (model.Partition, e.g. PartitionByKey) whose history alone is not
// linearizable under model, sorted by call time; nil when every one is.
func FailingPartition(model porcupine.Model, ops []porcupine.Operation) []porcupine.Operation {
	for _, part := range model.Partition(ops) {
		if !porcupine.CheckOperations(model, part) {
			sort.Slice(part, func(i, j int) bool { return part[i].Call < part[j].Call })
			return part
		}
	}
	return nil
}

// describeMax bounds DescribeOps' lines.
const describeMax = 200

// DescribeOps lists ops one a line, at most describeMax: client, call
// and return times since the history began (∞ for an unknown outcome)
// and model.DescribeOperation.
func DescribeOps(model porcupine.Model, ops []porcupine.Operation) string {
	var b strings.Builder
	for i, op := range ops {
		if i == describeMax {
			fmt.Fprintf(&b, "... %d more\n", len(ops)-i)
			break
		}
		ret := "∞"
		if op.Return != math.MaxInt64 {
			ret = time.Duration(op.Return).String()
		}
		fmt.Fprintf(&b, "c%d [%v, %s] %s\n", op.ClientId, time.Duration(op.Call), ret, model.DescribeOperation(op.Input, op.Output))
	}
	return b.String()
}
