package compute_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
)

// Do calls an endpoint the SDK has no method for, through the same client, its limiter, retries
// and errors: here the PATCH of a security group, which changes only the fields sent (the SDK's
// Update is the PUT of the whole group), its response decoded into a struct of the caller's.
func ExampleClient_Do() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	sg, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "web", Region: "NORD-NO-KRS-1",
		Rules: []compute.SecurityGroupRule{{Protocol: compute.ProtocolTCP, Direction: compute.DirectionIngress,
			PortRangeMin: compute.Ptr(443), PortRangeMax: compute.Ptr(443)}}})
	if err != nil {
		log.Fatal(err)
	}

	var out struct {
		SecurityGroup struct {
			Name        string            `json:"name"`
			Description string            `json:"description"`
			Rules       []json.RawMessage `json:"rules"`
		} `json:"security_group"`
	}
	err = c.Do(ctx, compute.RawRequest{
		Method: "PATCH",
		Path:   "/compute/v1/security-groups/{security_group_id}",
		IDs:    []string{sg.ID},
		Body:   map[string]string{"description": "front end"},
	}, &out)
	if err != nil {
		log.Fatal(err) // an *APIError for a refusal, as from any method
	}
	fmt.Println(out.SecurityGroup.Name, "|", out.SecurityGroup.Description, "|", len(out.SecurityGroup.Rules), "rule")
	// Output: web | front end | 1 rule
}
