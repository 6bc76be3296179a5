package report

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strconv"
)

// SVG geometry, in user units.
const (
	svgWidth   = 760
	svgHeight  = 380
	svgLeft    = 90 // room for the y labels
	svgRight   = 20
	svgTop     = 60
	svgBottom  = 90 // room for rotated x labels
	svgPointR  = 4
	svgFontCSS = "font-family:sans-serif;font-size:12px"
)

// verdictColours colour the points by verdict.
var verdictColours = map[string]string{
	VerdictGood: "#1a7f37", VerdictBad: "#cf222e", VerdictMid: "#bf8700", VerdictSkip: "#8c959f",
}

// SVG writes the report's chart as a standalone SVG image: median TPS per
// measured commit in history order, 95 % intervals as whiskers, points
// coloured by verdict.
func SVG(w io.Writer, in Input, opts Options) error {
	rep, err := Build(in, opts)
	if err != nil {
		return err
	}
	return rep.Chart.WriteSVG(w)
}

// WriteSVG writes the chart as SVG. The output depends only on the chart.
func (ch Chart) WriteSVG(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" style="%s">`+"\n",
		svgWidth, svgHeight, svgWidth, svgHeight, svgFontCSS)
	p(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	p(`<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", svgLeft, html.EscapeString(ch.Title))
	plotW := float64(svgWidth - svgLeft - svgRight)
	plotH := float64(svgHeight - svgTop - svgBottom)
	y := func(v float64) float64 {
		if ch.YMax == ch.YMin {
			return svgTop + plotH/2
		}
		return svgTop + plotH*(ch.YMax-v)/(ch.YMax-ch.YMin)
	}
	x := func(i int) float64 {
		if len(ch.Points) == 1 {
			return svgLeft + plotW/2
		}
		return svgLeft + 20 + (plotW-40)*float64(i)/float64(len(ch.Points)-1)
	}
	for _, v := range ticks(ch.YMin, ch.YMax) {
		p(`<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="#d0d7de"/>`+"\n", svgLeft, svgWidth-svgRight, f1(y(v)), f1(y(v)))
		p(`<text x="%d" y="%s" text-anchor="end">%s</text>`+"\n", svgLeft-6, f1(y(v)+4), tpsInt(v))
	}
	p(`<text transform="translate(16 %s) rotate(-90)" text-anchor="middle">median %s</text>`+"\n", f1(svgTop+plotH/2), html.EscapeString(ch.unit()))
	for _, line := range ch.lines() {
		if len(line) < 2 {
			continue
		}
		p(`<polyline fill="none" stroke="#57606a" stroke-width="1.5" points="`)
		for k, i := range line {
			if k > 0 {
				p(" ")
			}
			p("%s,%s", f1(x(i)), f1(y(ch.Points[i].Median)))
		}
		p(`"/>` + "\n")
	}
	for i, pt := range ch.Points {
		if pt.Culprit {
			p(`<circle cx="%s" cy="%s" r="%d" fill="none" stroke="#1f2328" stroke-width="1.5"/>`+"\n", f1(x(i)), f1(y(pt.Median)), svgPointR+4)
			p(`<text x="%s" y="%s" text-anchor="middle" font-weight="bold">culprit</text>`+"\n", f1(x(i)), f1(y(pt.Median)-svgPointR-10))
		}
	}
	for i, pt := range ch.Points {
		colour := verdictColours[pt.Verdict]
		if pt.Hi > 0 {
			p(`<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s"/>`+"\n", f1(x(i)), f1(x(i)), f1(y(pt.Lo)), f1(y(pt.Hi)), colour)
		}
		p(`<circle cx="%s" cy="%s" r="%d" fill="%s"><title>%s %s: %s %s</title></circle>`+"\n",
			f1(x(i)), f1(y(pt.Median)), svgPointR, colour, html.EscapeString(pt.Label), pt.Verdict, tps(pt.Median), html.EscapeString(ch.unit()))
		p(`<text transform="translate(%s %d) rotate(-45)" text-anchor="end" font-family="monospace">%s</text>`+"\n",
			f1(x(i)+4), svgHeight-svgBottom+14, html.EscapeString(pt.Label))
	}
	for i, v := range []string{VerdictGood, VerdictBad, VerdictMid, VerdictSkip} {
		p(`<circle cx="%d" cy="40" r="%d" fill="%s"/><text x="%d" y="44">%s</text>`+"\n",
			svgLeft+i*70, svgPointR, verdictColours[v], svgLeft+i*70+8, v)
	}
	p("</svg>\n")
	return bw.Flush()
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
