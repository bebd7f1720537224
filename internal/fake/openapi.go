package fake

import _ "embed"

// openAPIDocument describes the API's operations the fake serves (routes), and controlDocument the
// control endpoint's (controlRoutes); TestOpenAPIDescribesEveryRoute holds each to its table.
var (
	//go:embed openapi.yaml
	openAPIDocument []byte
	//go:embed control.yaml
	controlDocument []byte
)

// openAPI serves the machine-readable description of the operations the fake implements.
func openAPI(*state, call, *none) (document, *Error) {
	return document{contentType: "application/yaml", body: openAPIDocument}, nil
}

// controlOpenAPI serves the description of the control endpoint.
func controlOpenAPI(*Engine, call, *none) (document, *Error) {
	return document{contentType: "application/yaml", body: controlDocument}, nil
}
