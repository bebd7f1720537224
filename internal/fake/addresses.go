package fake

import "strconv"

// documentationRanges are the three IPv4 ranges set aside for documentation (RFC 5737), which no
// network routes: the fake's public addresses come from them first, so that none is a real host's
// or a private network's.
var documentationRanges = [...]string{"192.0.2.", "198.51.100.", "203.0.113."}

// documentationAddresses is how many public addresses the documentation ranges hold: .1 to .254 of
// each.
const documentationAddresses = len(documentationRanges) * 254

// benchmarkingBlocks is how many /24 blocks 198.18.0.0/15 holds, the range set aside for
// benchmarking network devices (RFC 2544), which no network routes either: the fake's public
// addresses come from it once the documentation ranges are all held, so that a fake filled with
// thousands of instances or floating IPs (a load test) still gives each one.
const benchmarkingBlocks = 512

// publicAddresses is how many public addresses there are in all.
const publicAddresses = documentationAddresses + benchmarkingBlocks*254

// publicPool hands out the public addresses, each to one holder (an instance or a floating IP) at
// a time, going round them in order so that an address just freed is the last to come back. When
// all of its addresses are held it has none: an instance then becomes active without a public IP,
// and a floating IP create is refused.
type publicPool struct {
	holder map[string]string // address -> the ID that holds it
	held   map[string]string // ID -> the address it holds
	next   int               // the index of the address to try first
	size   int               // how many addresses it hands out: publicAddresses, fewer in tests
}

func newPublicPool() publicPool {
	return publicPool{holder: map[string]string{}, held: map[string]string{}, size: publicAddresses}
}

// publicAddress is the i-th public address: the documentation ranges' first, then 198.18.0.0/15's.
func publicAddress(i int) string {
	if i < documentationAddresses {
		return documentationRanges[i/254] + strconv.Itoa(1+i%254)
	}
	i -= documentationAddresses
	block := i / 254
	return "198." + strconv.Itoa(18+block/256) + "." + strconv.Itoa(block%256) + "." + strconv.Itoa(1+i%254)
}

// take gives id the next free address, or "" when every one is held; an id holds one at most.
func (p *publicPool) take(id string) string {
	if a, ok := p.held[id]; ok {
		return a
	}
	if p.full() {
		return ""
	}
	for range p.size {
		a := publicAddress(p.next)
		p.next = (p.next + 1) % p.size
		if _, ok := p.holder[a]; !ok {
			p.holder[a], p.held[id] = id, a
			return a
		}
	}
	return ""
}

// full says whether every address is held.
func (p *publicPool) full() bool { return len(p.holder) >= p.size }

// release frees the address id holds, if any.
func (p *publicPool) release(id string) {
	if a, ok := p.held[id]; ok {
		delete(p.holder, a)
		delete(p.held, id)
	}
}
