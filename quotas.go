package compute

import "context"

// Quota is one of the account's limits and how much of it is used. The contract describes none of
// its fields; the meanings below are read from their names.
type Quota struct {
	// Key says which quota this is, an open string.
	Key string `json:"key"`
	// Capacity is the limit.
	Capacity int `json:"capacity"`
	// Used is how much of it is in use.
	Used int `json:"used"`
	// Flavors break Used down by product flavor.
	Flavors []QuotaFlavor `json:"flavors"`
}

// QuotaFlavor is the use of one product flavor within a [Quota].
type QuotaFlavor struct {
	// FlavorName is the flavor's name.
	FlavorName string `json:"flavor_name"`
	// ProductName is the product's name.
	ProductName string `json:"product_name"`
	// Unit is what Used counts.
	Unit string `json:"unit"`
	// Used is how much of this flavor is in use.
	Used int `json:"used"`
}

// quotasBody is the quotas response, not paginated.
type quotasBody struct {
	Quotas *[]Quota `json:"quotas"`
}

func (b *quotasBody) resource() *[]Quota { return b.Quotas }

// List returns every quota of the account: GET /compute/v1/quotas. A create past a quota is refused
// with an error matching [ErrQuotaExceeded].
func (s *QuotasService) List(ctx context.Context) ([]Quota, error) {
	q, err := fetch(ctx, s.c, request{op: opListQuotas}, &quotasBody{})
	if err != nil {
		return nil, err
	}
	return *q, nil
}
