package ahi

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseKnobsDefaults(t *testing.T) {
	k, err := ParseKnobs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(k, DefaultKnobs()) {
		t.Fatalf("ParseKnobs(nil) = %+v, want defaults %+v", k, DefaultKnobs())
	}
}

func TestParseKnobsValues(t *testing.T) {
	k, err := ParseKnobs(map[string]string{
		"ahi": "off", "parts": "16", "cells": "1000", "variant": "legacy106",
		"refcount_fix": "false", "nonlru_tables": "2", "startup_cycle": "no",
		"drop_mode": "eager57", "dict_mutex_per_query": "0.25", "pool_pages": "5000",
		"toggle": "10s:off, 20:on", "drop_at": "30s", "drop_table_rows": "100000",
		"leaf_records": "50", "fanout": "500", "tps_factor": "0.994",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Knobs{AHI: false, Parts: 16, Cells: 1000, Variant: VariantLegacy106, RefcountFix: false,
		NonLRUTables: 2, StartupCycle: false, DropMode: DropEager, DictMutexPerQuery: 0.25,
		PoolPages: 5000, Toggles: []Toggle{{10 * time.Second, false}, {20 * time.Second, true}},
		DropAt: 30 * time.Second, DropTableRows: 100000, LeafRecords: 50, Fanout: 500, TPSFactor: 0.994}
	if !reflect.DeepEqual(k, want) {
		t.Fatalf("got %+v\nwant %+v", k, want)
	}
	back, err := ParseKnobs(k.Map())
	if err != nil || !reflect.DeepEqual(back, k) {
		t.Fatalf("round trip through Map: %+v, %v", back, err)
	}
	if len(k.Map()) != len(KnobKeys()) {
		t.Fatalf("Map has %d keys, KnobKeys %d", len(k.Map()), len(KnobKeys()))
	}
}

func TestParseKnobsErrors(t *testing.T) {
	tests := []struct {
		m    map[string]string
		want string // substring of the error, naming the key
	}{
		{map[string]string{"refcountFix": "true"}, `unknown knob "refcountFix"`},
		{map[string]string{"bogus": "1"}, `"bogus"`},
		{map[string]string{"ahi": "maybe"}, "knob ahi="},
		{map[string]string{"parts": "0"}, "knob parts"},
		{map[string]string{"parts": "513"}, "knob parts"},
		{map[string]string{"variant": "mysql8"}, "knob variant"},
		{map[string]string{"drop_mode": "sometimes"}, "knob drop_mode"},
		{map[string]string{"tps_factor": "0"}, "knob tps_factor"},
		{map[string]string{"tps_factor": "x"}, "knob tps_factor"},
		{map[string]string{"dict_mutex_per_query": "2"}, "knob dict_mutex_per_query"},
		{map[string]string{"toggle": "10s"}, "knob toggle"},
		{map[string]string{"toggle": "20s:off,10s:on"}, "knob toggle"},
		{map[string]string{"drop_at": "10s"}, "knob drop_at needs drop_table_rows"},
		{map[string]string{"leaf_records": "1"}, "knob leaf_records"},
	}
	for _, tc := range tests {
		_, err := ParseKnobs(tc.m)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseKnobs(%v) error = %v, want it to contain %q", tc.m, err, tc.want)
		}
	}
}
