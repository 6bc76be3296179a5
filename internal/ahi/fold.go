package ahi

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"sort"
	"sync"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// foldOf returns the AHI fold of a clustered-index key: CRC-32C seeded with
// a fold of the index id over the key bytes (spec §1, 11.8). The key is the
// 4-byte INT id as InnoDB stores it: big-endian with the sign bit flipped.
func foldOf(indexID uint64, id int64) uint32 {
	// Byte-wise CRC-32C (same result as crc32.Update with the Castagnoli
	// table) without a slice, so the hot path does not allocate.
	key := uint32(id) ^ 0x80000000
	seed := uint32(indexID) ^ uint32(indexID>>32)*0x9E3779B1
	crc := ^seed
	for shift := 24; shift >= 0; shift -= 8 {
		crc = castagnoli[byte(crc)^byte(key>>shift)] ^ crc>>8
	}
	return ^crc
}

// collisions holds, for one model layout, every key whose fold equals the
// fold of another key in the same AHI partition. Those keys share one hash
// node ("owner"): a lookup of a non-owner finds the node, fails validation
// (HASH_FAIL) and its analysis repairs the node to point at itself (§5 step
// 4), so colliding pairs ping-pong as in the real server (§12.1 [derived]).
type collisions struct {
	groups int
	// per table (index in model table order): sorted colliding ids and
	// their group numbers
	ids   [][]int64
	group [][]int32
}

// lookup returns the collision group of (table, id), or -1.
func (c *collisions) lookup(ti int, id int64) int32 {
	if ti >= len(c.ids) {
		return -1
	}
	ids := c.ids[ti]
	if len(ids) == 0 {
		return -1
	}
	i, found := slices.BinarySearch(ids, id)
	if !found {
		return -1
	}
	return c.group[ti][i]
}

// inLeaf returns the positions in ids[ti] of colliding keys in [lo, hi].
func (c *collisions) inLeaf(ti int, lo, hi int64) (int, int) {
	if ti >= len(c.ids) {
		return 0, 0
	}
	ids := c.ids[ti]
	a := sort.Search(len(ids), func(i int) bool { return ids[i] >= lo })
	b := a
	for b < len(ids) && ids[b] <= hi {
		b++
	}
	return a, b
}

type collKey struct {
	parts int
	ids   string // index ids and rows, encoded
}

var collCache sync.Map // collKey -> *collisions

// findCollisions computes (once per layout, cached) the colliding keys.
func findCollisions(tables []*Table, parts int) *collisions {
	var enc []byte
	for _, t := range tables {
		enc = binary.AppendUvarint(enc, t.Index.ID)
		enc = binary.AppendVarint(enc, t.Rows)
	}
	key := collKey{parts: parts, ids: string(enc)}
	if c, ok := collCache.Load(key); ok {
		return c.(*collisions)
	}
	c := &collisions{ids: make([][]int64, len(tables)), group: make([][]int32, len(tables))}
	for p := 0; p < parts; p++ {
		var members []int // table positions in this partition
		var n int64
		for i, t := range tables {
			if t.Index.Part == p {
				members = append(members, i)
				n += t.Rows
			}
		}
		if len(members) == 0 {
			continue
		}
		// fold<<32 | member<<26 | id: fold in the high bits, then
		// the key's position so equal folds sort together.
		all := make([]uint64, 0, n)
		for mi, ti := range members {
			t := tables[ti]
			for id := int64(1); id <= t.Rows; id++ {
				all = append(all, uint64(foldOf(t.Index.ID, id))<<32|uint64(mi)<<26|uint64(id))
			}
		}
		radixSortHigh32(all)
		for i := 0; i < len(all); {
			j := i + 1
			for j < len(all) && all[j]>>32 == all[i]>>32 {
				j++
			}
			if j-i > 1 {
				g := int32(c.groups)
				c.groups++
				for _, v := range all[i:j] {
					ti := members[(v>>26)&63]
					c.ids[ti] = append(c.ids[ti], int64(v&(1<<26-1)))
					c.group[ti] = append(c.group[ti], g)
				}
			}
			i = j
		}
	}
	for ti := range c.ids {
		sortPairs(c.ids[ti], c.group[ti])
	}
	collCache.Store(key, c)
	return c
}

// radixSortHigh32 sorts v by its high 32 bits (two 16-bit LSD passes).
func radixSortHigh32(v []uint64) {
	tmp := make([]uint64, len(v))
	for shift := uint(32); shift < 64; shift += 16 {
		var count [1 << 16]int
		for _, x := range v {
			count[(x>>shift)&0xFFFF]++
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, x := range v {
			b := (x >> shift) & 0xFFFF
			tmp[count[b]] = x
			count[b]++
		}
		v, tmp = tmp, v
	}
}

// sortPairs sorts ids ascending, permuting groups alongside.
func sortPairs(ids []int64, groups []int32) {
	idx := make([]int, len(ids))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return ids[idx[a]] < ids[idx[b]] })
	ni, ng := make([]int64, len(ids)), make([]int32, len(ids))
	for i, k := range idx {
		ni[i], ng[i] = ids[k], groups[k]
	}
	copy(ids, ni)
	copy(groups, ng)
}
