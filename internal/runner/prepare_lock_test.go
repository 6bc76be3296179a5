package runner

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
)

// A syncBuffer is a bytes.Buffer safe for two writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Two benches on one WorkDir (two perfbisect processes on one cache)
// open sessions at once: the data is prepared once, the other waits for
// it, and both measure.
func TestTwoBenchesPrepareDataOnce(t *testing.T) {
	needMariadbd(t)
	ctx := context.Background()
	first := smallBench(t)
	var progress syncBuffer
	first.Progress = &progress
	second := *first
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, b := range []*Bench{first, &second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := b.Open(ctx, "/usr", "", []string{"one", "two"}[i])
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			if res, err := s.Run(ctx); err != nil || res.Events == 0 {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("bench %d: %v", i+1, err)
		}
	}
	out := progress.String()
	if n := strings.Count(out, "preparing "); n != 1 {
		t.Errorf("the data was prepared %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "using the data another perfbisect prepared") {
		t.Errorf("the second bench did not wait for the first one's data:\n%s", out)
	}
}
