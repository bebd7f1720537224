package compute

import "context"

// Quota is one of the account's limits and how much of it is used. The contract describes none of
// its fields; the meanings below are read from their names.
type Quota struct {
	Key      string        `json:"key"`      // which quota this is, an open string
	Capacity int           `json:"capacity"` // the limit
	Used     int           `json:"used"`     // how much of it is in use
	Flavors  []QuotaFlavor `json:"flavors"`  // Used broken down by product flavor
}

// QuotaFlavor is the use of one product flavor within a [Quota].
type QuotaFlavor struct {
	FlavorName  string `json:"flavor_name"`  // the flavor's name
	ProductName string `json:"product_name"` // the product's name
	Unit        string `json:"unit"`         // what Used counts
	Used        int    `json:"used"`         // how much of this flavor is in use
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
