package fake

import "strconv"

// publicRanges are the three IPv4 ranges set aside for documentation (RFC 5737), which no network
// routes: the fake's public addresses come from them, so that none is a real host's or a private
// network's.
var publicRanges = [...]string{"192.0.2.", "198.51.100.", "203.0.113."}

// publicAddresses is how many public addresses there are: .1 to .254 of each range.
const publicAddresses = len(publicRanges) * 254

// publicPool hands out the public addresses, each to one holder (an instance or a floating IP) at
// a time, going round the ranges in order so that an address just freed is the last to come back.
// When all are held it has none: an instance then becomes active without a public IP, and a
// floating IP create is refused.
type publicPool struct {
	holder map[string]string // address -> the ID that holds it
	held   map[string]string // ID -> the address it holds
	next   int               // the index of the address to try first
}

func newPublicPool() publicPool {
	return publicPool{holder: map[string]string{}, held: map[string]string{}}
}

// publicAddress is the i-th public address.
func publicAddress(i int) string {
	return publicRanges[i/254] + strconv.Itoa(1+i%254)
}

// take gives id the next free address, or "" when every one is held; an id holds one at most.
func (p *publicPool) take(id string) string {
	if a, ok := p.held[id]; ok {
		return a
	}
	for range publicAddresses {
		a := publicAddress(p.next)
		p.next = (p.next + 1) % publicAddresses
		if _, ok := p.holder[a]; !ok {
			p.holder[a], p.held[id] = id, a
			return a
		}
	}
	return ""
}

// full says whether every address is held.
func (p *publicPool) full() bool { return len(p.holder) == publicAddresses }

// release frees the address id holds, if any.
func (p *publicPool) release(id string) {
	if a, ok := p.held[id]; ok {
		delete(p.holder, a)
		delete(p.held, id)
	}
}
