package track

import (
	"fmt"
	"io"
	"strings"
)

// WriteNight writes a night's outcome as a few lines of text: one per
// branch, one per new change point.
func WriteNight(w io.Writer, rep *NightReport) {
	fmt.Fprintf(w, "night %s\n", rep.Night.UTC().Format("2006-01-02 15:04"))
	for _, b := range rep.Branches {
		what := "unchanged (tip measured before)"
		if b.Measured {
			what = fmt.Sprintf("measured: %.1f", b.Value)
		}
		if b.Error != "" {
			what = "error: " + b.Error
		}
		fmt.Fprintf(w, "  %s %s: %s, %d points\n", b.Branch, short(b.Tip), what, b.Points)
		for _, c := range b.Changes {
			fmt.Fprintf(w, "    change point after %s: %+.2f %% (p = %.2g), %s; bisect %s %s..%s: %s",
				short(c.After), 100*c.Change, c.PValue, c.Direction, c.BisectID, short(c.Good), short(c.Bad), c.Status)
			if len(c.Culprits) > 0 {
				names := make([]string, len(c.Culprits))
				for i, h := range c.Culprits {
					names[i] = short(h)
				}
				fmt.Fprintf(w, ", culprit %s", strings.Join(names, " "))
			}
			if c.Filing != nil {
				fmt.Fprintf(w, "; issue: %s", c.Filing.Action)
				if c.Filing.Issue != 0 {
					fmt.Fprintf(w, " #%d", c.Filing.Issue)
				}
			}
			if c.Error != "" {
				fmt.Fprintf(w, "; error: %s", c.Error)
			}
			fmt.Fprintln(w)
		}
	}
}
