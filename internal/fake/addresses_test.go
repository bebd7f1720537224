package fake

import (
	"net/http"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// documentation are the ranges RFC 5737 sets aside for documentation, from which the fake's public
// addresses come.
var documentation = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("203.0.113.0/24")}

// isDocumentation says whether s is an address of the documentation ranges, other than a range's
// first or last.
func isDocumentation(t *testing.T, s string) bool {
	t.Helper()
	a, err := netip.ParseAddr(s)
	require.NoError(t, err, s)
	for _, p := range documentation {
		if p.Contains(a) {
			last := a.As4()[3]
			return last != 0 && last != 255
		}
	}
	return false
}

// Instances' public IPs and floating IPs' addresses come from the documentation ranges, never a
// private range, each held by one resource at a time: all 762 of them, then (in a pool cut to
// those, so that the test stays small) none (an instance without a public IP, a floating IP
// refused with 02049) until one is freed by a delete.
func TestPublicAddressesComeFromTheDocumentationRanges(t *testing.T) {
	e := newEngine(Config{})
	e.s.public.size = documentationAddresses
	seen := map[string]string{}
	publicIP := func(id string) any {
		return ok(t, e, http.StatusOK, "GET", "/compute/v1/instances/"+id, "")["instance"].(map[string]any)["public_ip"]
	}
	fip := ok(t, e, http.StatusCreated, "POST", "/compute/v1/floating-ips", `{"name":"ip","region":"NORD-NO-KRS-1"}`)
	fipID := fip["floating_ip"].(map[string]any)["id"].(string)
	addr := ok(t, e, http.StatusOK, "GET", "/compute/v1/floating-ips/"+fipID, "")["floating_ip"].(map[string]any)["ip_address"].(string)
	require.True(t, isDocumentation(t, addr), addr)
	seen[addr] = fipID

	var ids []string
	for len(seen) < documentationAddresses {
		in := ok(t, e, http.StatusCreated, "POST", "/compute/v1/instances", instanceBodyJSON)["instance"].(map[string]any)
		id := in["id"].(string)
		ip, isString := publicIP(id).(string)
		require.True(t, isString, "instance %d has a public IP", len(ids)+1)
		require.True(t, isDocumentation(t, ip), ip)
		require.False(t, netip.MustParseAddr(ip).IsPrivate(), ip)
		require.Empty(t, seen[ip], "%s of %s is held by %s already", ip, id, seen[ip])
		seen[ip] = id
		ids = append(ids, id)
	}
	require.Len(t, seen, 3*254)

	// Every address is held: an instance becomes active without a public IP, a floating IP is refused.
	in := ok(t, e, http.StatusCreated, "POST", "/compute/v1/instances", instanceBodyJSON)["instance"].(map[string]any)
	assert.Nil(t, publicIP(in["id"].(string)), "no address is left")
	assert.Contains(t, refused(t, e, http.StatusBadRequest, codeStaticPublicIPQuotaReached, "POST", "/compute/v1/floating-ips",
		`{"name":"ip2","region":"NORD-NO-KRS-1"}`), "public")

	// A delete frees its address, which the next instance gets.
	ok(t, e, http.StatusNoContent, "DELETE", "/compute/v1/instances/"+ids[10], "")
	ok(t, e, http.StatusOK, "GET", "/compute/v1/instances", "") // the delete is done
	in = ok(t, e, http.StatusCreated, "POST", "/compute/v1/instances", instanceBodyJSON)["instance"].(map[string]any)
	ip := publicIP(in["id"].(string))
	assert.True(t, isDocumentation(t, ip.(string)), "%v", ip)
}

// An instance created with a floating IP shows the floating IP's address as its public IP, and holds
// no address of its own.
func TestInstanceWithAFloatingIPHoldsNoAddressOfItsOwn(t *testing.T) {
	e := newEngine(Config{})
	fip := ok(t, e, http.StatusCreated, "POST", "/compute/v1/floating-ips", `{"name":"ip","region":"NORD-NO-KRS-1"}`)
	fipID := fip["floating_ip"].(map[string]any)["id"].(string)
	addr := ok(t, e, http.StatusOK, "GET", "/compute/v1/floating-ips/"+fipID, "")["floating_ip"].(map[string]any)["ip_address"]
	body := `{"name":"web","hostname":"web","type":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1","image":"ubuntu-24.04",` +
		`"ssh_keys":["key-ci"],"floating_ip":"` + fipID + `"}`
	in := ok(t, e, http.StatusCreated, "POST", "/compute/v1/instances", body)["instance"].(map[string]any)
	got := ok(t, e, http.StatusOK, "GET", "/compute/v1/instances/"+in["id"].(string), "")["instance"].(map[string]any)
	assert.Equal(t, addr, got["public_ip"])
	assert.Len(t, e.s.public.holder, 1, "only the floating IP holds an address")
}

// Once the documentation ranges are all held, public addresses come from the range set aside for
// benchmarking (198.18.0.0/15), never a private one, each distinct: a fake filled by a load test
// gives every instance and floating IP an address.
func TestPublicAddressesGoOnInTheBenchmarkingRange(t *testing.T) {
	benchmarking := netip.MustParsePrefix("198.18.0.0/15")
	seen := map[string]bool{}
	for i := range publicAddresses {
		s := publicAddress(i)
		a, err := netip.ParseAddr(s)
		require.NoError(t, err, s)
		require.False(t, seen[s], "%s handed out twice (index %d)", s, i)
		seen[s] = true
		require.False(t, a.IsPrivate() || a.IsLoopback() || a.IsUnspecified(), s)
		last := a.As4()[3]
		require.True(t, last != 0 && last != 255, "%s ends a /24", s)
		if i < documentationAddresses {
			require.True(t, isDocumentation(t, s), "%d: %s", i, s)
		} else {
			require.True(t, benchmarking.Contains(a), "%d: %s", i, s)
		}
	}
	require.Equal(t, "198.18.0.1", publicAddress(documentationAddresses))
	require.Equal(t, "198.19.255.254", publicAddress(publicAddresses-1))

	e := newEngine(Config{})
	for range documentationAddresses {
		ok(t, e, http.StatusCreated, "POST", "/compute/v1/floating-ips", `{"name":"ip","region":"NORD-NO-KRS-1"}`)
	}
	in := ok(t, e, http.StatusCreated, "POST", "/compute/v1/instances", instanceBodyJSON)["instance"].(map[string]any)
	got := ok(t, e, http.StatusOK, "GET", "/compute/v1/instances/"+in["id"].(string), "")["instance"].(map[string]any)["public_ip"]
	assert.Equal(t, "198.18.0.1", got)
}
