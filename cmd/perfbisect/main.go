// Command perfbisect finds the commit that changed a database's throughput.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes. Commands that need more (bisect: culprit found versus not
// reproduced) define theirs beside these and return an *exitError.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	os.Exit(run())
}

func run() int {
	// The first SIGINT/SIGTERM cancels ctx so every command can stop
	// cleanly (stop servers, keep what was measured); stop() restores the
	// default handlers, so a second signal kills the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	defer stop()

	root := newRootCmd(os.Stdout, os.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "perfbisect:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(os.Stderr, "perfbisect:", err)
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	if ctx.Err() != nil {
		return 130 // interrupted, as shells report SIGINT
	}
	return exitFailure
}
