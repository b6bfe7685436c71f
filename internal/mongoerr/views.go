package mongoerr

// View and capped-collection codes (issue #14), kept apart from codes.go
// so this work edits no shared list; init adds their codeNames.
const (
	ViewDepthLimitExceeded   Code = 165
	OptionNotSupportedOnView Code = 167
	InvalidViewDefinition    Code = 182
)

func init() {
	names[ViewDepthLimitExceeded] = "ViewDepthLimitExceeded"
	names[OptionNotSupportedOnView] = "OptionNotSupportedOnView"
	names[InvalidViewDefinition] = "InvalidViewDefinition"
}
