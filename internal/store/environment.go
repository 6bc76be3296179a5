package store

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// An Environment is the machine and server build a run was taken on. Runs
// compare only within one environment.
type Environment struct {
	ID           string // Fingerprint(); set by PutEnvironment when empty
	CPUModel     string
	Cores        int
	MemoryBytes  int64
	Kernel       string
	BuildOptions string // server build options (recipe summary), "" if none
}

// Fingerprint is a stable hash of every field but ID.
func (e Environment) Fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "cpu=%s\ncores=%d\nmem=%d\nkernel=%s\nbuild=%s\n",
		e.CPUModel, e.Cores, e.MemoryBytes, e.Kernel, e.BuildOptions)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// DetectEnvironment describes this machine (Linux /proc; elsewhere the
// fields it cannot read stay empty), with the given build options.
func DetectEnvironment(buildOptions string) Environment {
	e := Environment{Cores: runtime.NumCPU(), BuildOptions: buildOptions}
	e.CPUModel = procField("/proc/cpuinfo", "model name")
	if kb, err := strconv.ParseInt(strings.Fields(procField("/proc/meminfo", "MemTotal") + " 0")[0], 10, 64); err == nil {
		// Rounded to the GiB: the kernel's figure moves by a few MB between boots.
		e.MemoryBytes = (kb*1024 + 1<<29) >> 30 << 30
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		e.Kernel = strings.TrimSpace(string(b))
	}
	e.ID = e.Fingerprint()
	return e
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))
		}
	}
	return ""
}
