package expr

import "fmt"

// Arith applies the arithmetic operator op ("$add", "$subtract",
// "$multiply" or "$divide") to a and b exactly as the aggregation
// expression does: same result types (an exact decimal when either is a
// decimal), same errors (BadValue for a division by zero).
func Arith(op string, a, b any) (any, error) {
	args := []any{a, b}
	switch op {
	case "$add":
		return evalAdd(op, args)
	case "$subtract":
		return evalSubtract(op, args)
	case "$multiply":
		return evalMultiply(op, args)
	case "$divide":
		return evalDivide(op, args)
	}
	return nil, fmt.Errorf("expr: Arith: unknown operator %q", op)
}
