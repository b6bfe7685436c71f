package mongoerr

// Server-side JavaScript codes ($where, $function, $accumulator; issue
// #14), kept apart from codes.go so this work edits no shared list; init
// adds the codeNames of the named ones.
const (
	JSInterpreterFailure Code = 139
	// The location codes mongod answers for $where and $function.
	JSFunctionNoEngine  Code = 31264   // location code: codeName Location31264 ($function/$accumulator with scripting off)
	JSWhereCodeWScope   Code = 4649201 // location code: codeName Location4649201 ($where with CodeWScope)
	JSWhereNoEngine     Code = 6108304 // location code: codeName Location6108304 ($where with scripting off)
	JSAccumulatorTooBig Code = 4545000 // location code: codeName Location4545000 ($accumulator arguments past 16 MB)
)

func init() {
	names[JSInterpreterFailure] = "JSInterpreterFailure"
}
