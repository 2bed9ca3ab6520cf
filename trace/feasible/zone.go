package feasible

import "math"

// zone is a closed difference-bound matrix over n nodes (node 0 is zero):
// m[i][j] bounds x_j - x_i. It is the abstract state of the invariant
// checker (invcheck.go): the zone domain of abstract interpretation,
// whose join keeps what holds on both sides.
type zone struct {
	n      int
	m      []int64 // n*n
	bottom bool    // no state reaches here
}

const inf = math.MaxInt64

func newZone(n int) *zone {
	z := &zone{n: n, m: make([]int64, n*n)}
	for i := range z.m {
		z.m[i] = inf
	}
	for i := 0; i < n; i++ {
		z.m[i*n+i] = 0
	}
	return z
}

func bottomZone(n int) *zone { z := newZone(n); z.bottom = true; return z }

func (z *zone) clone() *zone {
	return &zone{n: z.n, m: append([]int64(nil), z.m...), bottom: z.bottom}
}

func add64(a, b int64) int64 {
	if a == inf || b == inf {
		return inf
	}
	return a + b
}

// constrain adds x_j - x_i <= c and closes the matrix incrementally.
func (z *zone) constrain(i, j int, c int64) {
	if z.bottom || c >= z.m[i*z.n+j] {
		return
	}
	if add64(z.m[j*z.n+i], c) < 0 {
		z.bottom = true
		return
	}
	n := z.n
	for a := 0; a < n; a++ {
		ai := z.m[a*n+i]
		if ai == inf {
			continue
		}
		for b := 0; b < n; b++ {
			jb := z.m[j*n+b]
			if jb == inf {
				continue
			}
			if v := ai + c + jb; v < z.m[a*n+b] {
				z.m[a*n+b] = v
			}
		}
	}
}

// forget drops everything known of node i.
func (z *zone) forget(i int) {
	if z.bottom {
		return
	}
	n := z.n
	for k := 0; k < n; k++ {
		if k == i {
			continue
		}
		z.m[i*n+k] = inf
		z.m[k*n+i] = inf
	}
}

// eq says x_i == x_j + c.
func (z *zone) eq(i, j int, c int64) {
	z.constrain(j, i, c)  // x_i - x_j <= c
	z.constrain(i, j, -c) // x_j - x_i <= -c
}

// implies reports whether x_j - x_i <= c holds.
func (z *zone) implies(i, j int, c int64) bool {
	return z.bottom || z.m[i*z.n+j] <= c
}

// join is the least zone that contains both, in a's memory or b's: both
// are the caller's to give up.
func join(a, b *zone) *zone {
	if a.bottom {
		return b
	}
	if b.bottom {
		return a
	}
	for k := range a.m {
		if b.m[k] > a.m[k] {
			a.m[k] = b.m[k]
		}
	}
	return a
}
