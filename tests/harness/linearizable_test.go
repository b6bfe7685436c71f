package harness

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

// regOp is a register read (Write false) or write of Value to Key.
type regOp struct {
	Write      bool
	Key, Value int
}

type regOut struct {
	Value   int
	Unknown bool
}

var testModel = porcupine.Model{
	Partition: PartitionByKey(func(in any) int { return in.(regOp).Key }),
	Init:      func() any { return 0 },
	Step: func(st, in, out any) (bool, any) {
		if in.(regOp).Write {
			return true, in.(regOp).Value
		}
		return out.(regOut).Value == st, st
	},
	DescribeOperation: func(in, out any) string {
		if in.(regOp).Write {
			return fmt.Sprintf("write(k%d, %d)", in.(regOp).Key, in.(regOp).Value)
		}
		return fmt.Sprintf("read(k%d) -> %d", in.(regOp).Key, out.(regOut).Value)
	},
}

func TestFailingPartitionAndDescribeOps(t *testing.T) {
	op := func(in regOp, out regOut, call, ret int64) porcupine.Operation {
		return porcupine.Operation{Input: in, Output: out, Call: call, Return: ret}
	}
	good := []porcupine.Operation{op(regOp{true, 1, 5}, regOut{}, 0, 10), op(regOp{false, 1, 0}, regOut{Value: 5}, 20, 30)}
	if bad := FailingPartition(testModel, good); bad != nil {
		t.Fatalf("linearizable history: FailingPartition = %v, want nil", bad)
	}
	// Key 2's stale read fails; key 1 is fine. Out of call order on purpose.
	ops := append(good, op(regOp{false, 2, 0}, regOut{Value: 0}, 40, 50), op(regOp{true, 2, 7}, regOut{Unknown: true}, 5, math.MaxInt64),
		op(regOp{true, 2, 8}, regOut{}, 10, 20))
	bad := FailingPartition(testModel, ops)
	if len(bad) != 3 || bad[0].Call != 5 || bad[2].Call != 40 {
		t.Fatalf("FailingPartition = %v, want key 2's three operations by call time", bad)
	}
	got := DescribeOps(testModel, bad)
	want := "c0 [5ns, ∞] write(k2, 7)\nc0 [10ns, 20ns] write(k2, 8)\nc0 [40ns, 50ns] read(k2) -> 0\n"
	if got != want {
		t.Errorf("DescribeOps =\n%s\nwant\n%s", got, want)
	}
	many := make([]porcupine.Operation, describeMax+3)
	for i := range many {
		many[i] = op(regOp{false, 1, 0}, regOut{}, int64(i), int64(i))
	}
	if got := DescribeOps(testModel, many); !strings.HasSuffix(got, "... 3 more\n") || strings.Count(got, "\n") != describeMax+1 {
		t.Errorf("DescribeOps of %d operations does not stop at %d lines: %q", len(many), describeMax, got[len(got)-40:])
	}
}
