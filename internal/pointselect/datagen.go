package pointselect

import "strconv"

// digitPairs holds "00".."99" for two digits per lookup.
var digitPairs = func() (t [200]byte) {
	for i := 0; i < 100; i++ {
		t[2*i], t[2*i+1] = byte('0'+i/10), byte('0'+i%10)
	}
	return t
}()

// A rowGen produces sysbench rows: k from the configured distribution,
// c and pad as random digit groups. It owns its Rand.
type rowGen struct {
	rng    Rand
	k      *Dist
	digits [16]byte
	nd     int // unused digits left in digits
}

// appendDigits appends n uniform random digits ('0'..'9'); a 64-bit draw
// reduced mod 10^16 gives 16 digits with a bias below 0.06 %.
func (g *rowGen) appendDigits(b []byte, n int) []byte {
	for n > 0 {
		if g.nd == 0 {
			x := g.rng.Uint64() % 1e16
			for i := 14; i >= 0; i -= 2 {
				p := x % 100
				x /= 100
				g.digits[i], g.digits[i+1] = digitPairs[2*p], digitPairs[2*p+1]
			}
			g.nd = 16
		}
		take := min(n, g.nd)
		b = append(b, g.digits[16-g.nd:16-g.nd+take]...)
		g.nd -= take
		n -= take
	}
	return b
}

// appendGroups appends groups of 11 digits joined by '-'.
func (g *rowGen) appendGroups(b []byte, groups int) []byte {
	for i := 0; i < groups; i++ {
		if i > 0 {
			b = append(b, '-')
		}
		b = g.appendDigits(b, 11)
	}
	return b
}

// appendCSV appends row id as "[id,]k,c,pad\n" for LOAD DATA.
func (g *rowGen) appendCSV(b []byte, id int64, withID bool) []byte {
	if withID {
		b = strconv.AppendInt(b, id, 10)
		b = append(b, ',')
	}
	b = strconv.AppendUint(b, uint64(g.k.Draw(&g.rng)), 10)
	b = append(b, ',')
	b = g.appendGroups(b, 10)
	b = append(b, ',')
	b = g.appendGroups(b, 5)
	return append(b, '\n')
}

// appendValues appends row id in sysbench's INSERT form:
// "(k, 'c', 'pad')" or "(id, k, 'c', 'pad')".
func (g *rowGen) appendValues(b []byte, id int64, withID bool) []byte {
	b = append(b, '(')
	if withID {
		b = strconv.AppendInt(b, id, 10)
		b = append(b, ", "...)
	}
	b = strconv.AppendUint(b, uint64(g.k.Draw(&g.rng)), 10)
	b = append(b, ", '"...)
	b = g.appendGroups(b, 10)
	b = append(b, "', '"...)
	b = g.appendGroups(b, 5)
	return append(b, "')"...)
}

// A csvReader streams rows 1..n of one table as LOAD DATA input.
type csvReader struct {
	g      *rowGen
	next   int64
	n      int64
	withID bool
	buf    []byte
	off    int
}

func (r *csvReader) Read(p []byte) (int, error) {
	if r.off == len(r.buf) {
		if r.next > r.n {
			return 0, errEOF
		}
		r.buf, r.off = r.buf[:0], 0
		for len(r.buf) < 60000 && r.next <= r.n {
			r.buf = r.g.appendCSV(r.buf, r.next, r.withID)
			r.next++
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}
