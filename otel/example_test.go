package computeotel_test

import (
	"context"
	"fmt"
	"log"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	computeotel "github.com/compute-sdk/compute-go/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Wiring a client: one option. Here the spans go to a recorder and the metrics to a manual reader;
// in a program, pass the providers your exporters are set up on, or nothing to use the global ones.
func ExampleWithInstrumentation() {
	srv := computetest.NewServer()
	defer srv.Close()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))

	c, err := compute.NewClient(srv.Token, compute.WithBaseURL(srv.URL),
		computeotel.WithInstrumentation(computeotel.WithTracerProvider(tp), computeotel.WithMeterProvider(mp)))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.Instances.Get(context.Background(), "ins-missing")
	fmt.Println(err != nil)

	for _, s := range spans.Ended() {
		for _, a := range s.Attributes() {
			if a.Key == "error.type" {
				fmt.Printf("%s: %s, error.type %s\n", s.Name(), s.Status().Code, a.Value.String())
			}
		}
	}
	// Output:
	// true
	// GET /compute/v1/instances/{instance_id}: Error, error.type 404
	// compute.Instances.Get: Error, error.type 404
}
