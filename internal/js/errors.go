package js

import (
	"errors"
	"regexp"
	"strings"

	"github.com/dop251/goja"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// interruptReason is the value a runtime is interrupted with.
type interruptReason int

const (
	reasonDeadline  interruptReason = iota + 1 // the operation's maxTimeMS is used up
	reasonEvalLimit                            // the per-evaluation limit passed
	reasonMemory                               // the heap grew past MaxHeapGrowth (heap.go)
	reasonKilled                               // killOp (Options.Ctx, Killed)
)

var syntaxPosition = regexp.MustCompile(`^\(anonymous\): Line \d+:\d+ `)

func tooDeep() error {
	return mongoerr.New(mongoerr.JSInterpreterFailure, "Converting between BSON and JavaScript: nesting deeper than %d levels", MaxDepth)
}

func unsupported(v any) error {
	return mongoerr.New(mongoerr.JSInterpreterFailure, "Cannot convert a value of type %T to JavaScript", v)
}

func badShellValue(tag, v string) error {
	return mongoerr.New(mongoerr.JSInterpreterFailure, "invalid %s value %q", tag, v)
}

// jsError turns what goja returned into a MongoDB error: syntax errors and
// uncaught exceptions are JSInterpreterFailure (mongod transmits its
// JSInterpreterFailureWithStack as the underlying 139), an interrupt at the
// operation's maxTimeMS MaxTimeMSExpired, a *mongoerr.Error raised by a native
// function (sleep) itself.
func (s *Session) jsError(err error) error {
	var me *mongoerr.Error
	var syn *goja.CompilerSyntaxError
	var exc *goja.Exception
	var intr *goja.InterruptedError
	var so *goja.StackOverflowError
	switch {
	case errors.As(err, &me):
		return me
	case errors.As(err, &syn):
		// The position is in relaydb's wrapper around the code: drop it.
		return mongoerr.New(mongoerr.JSInterpreterFailure, "SyntaxError: %s", syntaxPosition.ReplaceAllString(syn.Message, ""))
	case errors.As(err, &intr):
		switch r, _ := intr.Value().(interruptReason); r {
		case reasonEvalLimit:
			return mongoerr.New(mongoerr.JSInterpreterFailure, "JavaScript execution interrupted: it ran longer than the %v limit of one evaluation", s.opts.EvalLimit)
		case reasonKilled:
			return mongoerr.New(mongoerr.Interrupted, "operation was interrupted")
		case reasonMemory:
			return mongoerr.New(mongoerr.JSInterpreterFailure, "Out of memory: the JavaScript evaluation grew the heap by more than %d MB", MaxHeapGrowth>>20)
		}
		return mongoerr.New(mongoerr.MaxTimeMSExpired, "operation exceeded time limit")
	case errors.As(err, &so):
		return mongoerr.New(mongoerr.JSInterpreterFailure, "InternalError: too much recursion")
	case errors.As(err, &exc):
		return excError(exc)
	}
	return mongoerr.New(mongoerr.JSInterpreterFailure, "%v", err)
}

// excError is an uncaught exception: its value and stack, as mongod's
// "Error: boom :\n@..." message.
func excError(exc *goja.Exception) error {
	if me := goError(exc); me != nil {
		return me
	}
	msg := "uncaught exception"
	if v := exc.Value(); v != nil {
		msg = v.String()
	}
	stack := strings.TrimPrefix(exc.String(), msg)
	return mongoerr.New(mongoerr.JSInterpreterFailure, "%s :\n%s", msg, strings.TrimSpace(stack))
}

// goError unwraps a Go error a native function threw (sleep's deadline).
func goError(exc *goja.Exception) *mongoerr.Error {
	var me *mongoerr.Error
	if errors.As(exc.Unwrap(), &me) {
		return me
	}
	return nil
}

// tooLarge is the error for source past MaxSourceBytes.
func tooLarge(what string, n int) error {
	return mongoerr.New(mongoerr.JSInterpreterFailure, "%s is %d bytes, more than the %d bytes relaydb accepts", what, n, MaxSourceBytes)
}
