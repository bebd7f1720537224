package computetest

import (
	_ "embed"
	"net/http"
)

//go:embed openapi.yaml
var openAPIDocument []byte

// openAPI serves the machine-readable description of the operations the fake implements.
func (s *Server) openAPI(*call) (int, any, *apiError) {
	return http.StatusOK, document{contentType: "application/yaml", body: openAPIDocument}, nil
}
