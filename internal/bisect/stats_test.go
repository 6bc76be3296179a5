package bisect

import "testing"

func TestPickMid(t *testing.T) {
	none := func(int) bool { return false }
	tests := []struct {
		name    string
		lo, hi  int
		skipped []int
		built   []int
		want    int
	}{
		{"middle", 0, 10, nil, nil, 5},
		{"adjacent", 3, 4, nil, nil, -1},
		{"skip middle", 0, 10, []int{5}, nil, 6},
		{"all skipped", 0, 4, []int{1, 2, 3}, nil, -1},
		{"built in middle half", 0, 100, nil, []int{30}, 30},
		{"built outside middle half", 0, 100, nil, []int{10}, 50},
	}
	for _, tt := range tests {
		sk := map[int]bool{}
		for _, i := range tt.skipped {
			sk[i] = true
		}
		built := none
		if tt.built != nil {
			built = func(i int) bool { return i == tt.built[0] }
		}
		if got := pickMid(tt.lo, tt.hi, sk, built); got != tt.want {
			t.Errorf("%s: pickMid = %d, want %d", tt.name, got, tt.want)
		}
	}
}
