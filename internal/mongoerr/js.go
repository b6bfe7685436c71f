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

// $function's parse and evaluation errors (expression_function.cpp).
const (
	JSFunctionNotObject    Code = 31260 // location code: codeName Location31260
	JSFunctionNoBody       Code = 31261 // location code: codeName Location31261
	JSFunctionBodyType     Code = 31262 // location code: codeName Location31262
	JSFunctionNoArgs       Code = 31263 // location code: codeName Location31263
	JSFunctionArgsNotArray Code = 31266 // location code: codeName Location31266
	JSFunctionNoLang       Code = 31418 // location code: codeName Location31418
	JSFunctionBadLang      Code = 31419 // location code: codeName Location31419
	JSFunctionBodyNotConst Code = 31432 // location code: codeName Location31432
)

// $accumulator's parse and evaluation errors (accumulator_js_reduce.cpp).
const (
	JSAccNotObject         Code = 4544703 // location code: codeName Location4544703
	JSAccFuncNotConst      Code = 4544701 // location code: codeName Location4544701
	JSAccFuncType          Code = 4544702 // location code: codeName Location4544702
	JSAccLangType          Code = 4544704 // location code: codeName Location4544704
	JSAccBadLang           Code = 4544705 // location code: codeName Location4544705
	JSAccUnknownField      Code = 4544706 // location code: codeName Location4544706
	JSAccNoInit            Code = 4544707 // location code: codeName Location4544707
	JSAccNoAccumulate      Code = 4544708 // location code: codeName Location4544708
	JSAccNoMerge           Code = 4544709 // location code: codeName Location4544709
	JSAccNoAccumulateArgs  Code = 4544710 // location code: codeName Location4544710
	JSAccInitArgsNotArray  Code = 4544711 // location code: codeName Location4544711
	JSAccAccumArgsNotArray Code = 4544712 // location code: codeName Location4544712
)
