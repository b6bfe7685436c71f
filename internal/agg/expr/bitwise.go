package expr

// Bitwise operators $bitAnd, $bitOr, $bitXor and $bitNot. Invariants:
// operands are read left to right; a null, undefined or missing operand
// gives null, any other non-int/long operand fails with TypeMismatch; the
// result is an int when every operand is an int, else a long; no operands
// give the operation's identity as an int.

import (
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func registerBitwise() {
	nary("$bitAnd", 0, -1, bitwise(-1, func(a, b int64) int64 { return a & b }))
	nary("$bitOr", 0, -1, bitwise(0, func(a, b int64) int64 { return a | b }))
	nary("$bitXor", 0, -1, bitwise(0, func(a, b int64) int64 { return a ^ b }))
	nary("$bitNot", 1, 1, evalBitNot)
}

// bitOperand reads one operand: null=true for nullish input.
func bitOperand(name string, a any) (v int64, isLong, null bool, err error) {
	switch t := a.(type) {
	case int32:
		return int64(t), false, false, nil
	case int64:
		return t, true, false, nil
	}
	if IsNullish(a) {
		return 0, false, true, nil
	}
	return 0, false, false, errf(mongoerr.TypeMismatch, "%s only supports int and long operands.", name)
}

func bitwise(identity int64, op func(a, b int64) int64) func(string, []any) (any, error) {
	return func(name string, args []any) (any, error) {
		acc, long := identity, false
		for _, a := range args {
			v, isLong, null, err := bitOperand(name, a)
			if null || err != nil {
				return nil, err
			}
			acc, long = op(acc, v), long || isLong
		}
		if long {
			return acc, nil
		}
		return int32(acc), nil
	}
}

func evalBitNot(name string, args []any) (any, error) {
	v, isLong, null, err := bitOperand(name, args[0])
	if null || err != nil {
		return nil, err
	}
	if isLong {
		return ^v, nil
	}
	return int32(^v), nil
}
