package computeotel

// ErrorType and ServerAttrs expose errorType and serverAttrs to the tests.
var (
	ErrorType   = errorType
	ServerAttrs = serverAttrs
)
