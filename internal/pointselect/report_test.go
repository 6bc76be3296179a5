package pointselect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// simResult is a small seeded simulated run.
func simResult(t *testing.T) *Result {
	t.Helper()
	res, err := Run(context.Background(), &fakeBackend{simulated: true},
		RunConfig{Threads: 4, Tables: 2, TableSize: 1000, Time: 2 * time.Second, Seed: 9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestJSONHasTheDocumentedKeys(t *testing.T) {
	res := simResult(t)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tps", "qps", "errors", "reconnects", "intervals", "latency_ms", "seed", "events"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	lat, _ := m["latency_ms"].(map[string]any)
	for _, k := range []string{"min", "avg", "max", "p95"} {
		if _, ok := lat[k]; !ok {
			t.Errorf("latency_ms lacks %q", k)
		}
	}
	if iv, _ := m["intervals"].([]any); len(iv) != 2 {
		t.Errorf("intervals %v, want 2 one-second points", m["intervals"])
	}
}

// TestSummaryParsesLikeSysbench reads our summary with the expressions a
// sysbench log parser uses and gets our numbers back.
func TestSummaryParsesLikeSysbench(t *testing.T) {
	res := simResult(t)
	var buf bytes.Buffer
	if err := WriteSummary(&buf, res, true); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	tests := []struct {
		re   string
		want string
	}{
		{`transactions:\s+(\d+)\s+\(([0-9.]+) per sec\.\)`, fmt.Sprintf("%d %.2f", res.Events, res.TPS)},
		{`queries:\s+(\d+)\s+\(([0-9.]+) per sec\.\)`, fmt.Sprintf("%d %.2f", res.Queries, res.QPS)},
		{`total number of events:\s+(\d+)`, fmt.Sprint(res.Events)},
		{`95th percentile:\s+([0-9.]+)`, fmt.Sprintf("%.2f", res.Latency.P95)},
		{`avg:\s+([0-9.]+)`, fmt.Sprintf("%.2f", res.Latency.Avg)},
	}
	for _, tt := range tests {
		m := regexp.MustCompile(tt.re).FindStringSubmatch(out)
		if m == nil || strings.Join(m[1:], " ") != tt.want {
			t.Errorf("%s: got %q, want %q", tt.re, m, tt.want)
		}
	}
	if !strings.HasPrefix(out, "Latency histogram (values are in milliseconds)\n") {
		t.Errorf("histogram missing:\n%s", out)
	}
}
