// Package svg draws the small charts the benchmark suite publishes: a line
// chart over categorical x values and a grouped bar chart, as standalone
// SVG documents with no dependencies.
//
// Invariants: output is deterministic for the same input (golden-testable);
// every value label and series name is XML-escaped; negative, NaN and
// infinite values are drawn as zero.
package svg

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Series is one named line or bar colour; Values align with the x labels
// (line chart) or the groups (bar chart).
type Series struct {
	Name   string
	Values []float64
}

// Chart geometry, in SVG user units.
const (
	width, height            = 760, 480
	marginL, marginR         = 80, 170
	marginT, marginB         = 40, 120
	plotW, plotH             = width - marginL - marginR, height - marginT - marginB
	yTicks                   = 5
	fontAttrs                = `font-family="sans-serif" font-size="12"`
	legendX                  = width - marginR + 15
	legendRowH               = 18
	barGroupPad      float64 = 0.2 // fraction of a group's width left empty
)

// palette is a colour-blind-safe qualitative palette (Okabe-Ito).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"}

func colour(i int) string { return palette[i%len(palette)] }

func clean(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0
	}
	return v
}

// niceMax rounds m up to 1, 2 or 5 times a power of ten.
func niceMax(m float64) float64 {
	if m <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(m)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*p >= m {
			return f * p
		}
	}
	return 10 * p
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

type doc struct{ b strings.Builder }

func (d *doc) f(format string, args ...any) { fmt.Fprintf(&d.b, format, args...) }

func (d *doc) text(x, y float64, anchor, s string, extra string) {
	d.f(`<text x="%.1f" y="%.1f" text-anchor="%s" %s%s>%s</text>`+"\n", x, y, anchor, fontAttrs, extra, html.EscapeString(s))
}

// frame draws the title, y axis with grid and labels, and the legend; it
// returns the y scale's maximum.
func (d *doc) frame(title, yLabel string, series []Series) float64 {
	d.f(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", width, height, width, height)
	d.f(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	d.text(width/2, 22, "middle", title, ` font-weight="bold"`)
	top := 0.0
	for _, s := range series {
		for _, v := range s.Values {
			top = math.Max(top, clean(v))
		}
	}
	top = niceMax(top)
	for i := 0; i <= yTicks; i++ {
		v := top * float64(i) / yTicks
		y := marginT + plotH - plotH*float64(i)/yTicks
		d.f(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", marginL, y, marginL+plotW, y)
		d.text(marginL-6, y+4, "end", num(v), "")
	}
	d.f(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", marginL, marginT, marginL, marginT+plotH)
	d.f(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", marginL, marginT+plotH, marginL+plotW, marginT+plotH)
	d.f(`<text transform="translate(18 %d) rotate(-90)" text-anchor="middle" %s>%s</text>`+"\n",
		marginT+plotH/2, fontAttrs, html.EscapeString(yLabel))
	for i, s := range series {
		y := float64(marginT + 10 + i*legendRowH)
		d.f(`<rect x="%d" y="%.1f" width="12" height="12" fill="%s"/>`+"\n", legendX, y-10, colour(i))
		d.text(legendX+18, y, "start", s.Name, "")
	}
	return top
}

func yPos(v, top float64) float64 { return marginT + plotH - plotH*clean(v)/top }

// Line draws one line per series over the categorical x labels.
func Line(title, xLabel, yLabel string, x []string, series []Series) string {
	var d doc
	top := d.frame(title, yLabel, series)
	step := float64(plotW) / float64(max(len(x), 1))
	xPos := func(i int) float64 { return marginL + step*(float64(i)+0.5) }
	for i, l := range x {
		d.text(xPos(i), marginT+plotH+18, "middle", l, "")
	}
	d.text(marginL+plotW/2, marginT+plotH+40, "middle", xLabel, "")
	for si, s := range series {
		var pts []string
		for i := 0; i < len(x) && i < len(s.Values); i++ {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xPos(i), yPos(s.Values[i], top)))
		}
		d.f(`<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", colour(si), strings.Join(pts, " "))
		for _, p := range pts {
			xy := strings.Split(p, ",")
			d.f(`<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", xy[0], xy[1], colour(si))
		}
	}
	d.f("</svg>\n")
	return d.b.String()
}

// Bars draws, for each group, one bar per series side by side.
func Bars(title, yLabel string, groups []string, series []Series) string {
	var d doc
	top := d.frame(title, yLabel, series)
	gw := float64(plotW) / float64(max(len(groups), 1))
	bw := gw * (1 - barGroupPad) / float64(max(len(series), 1))
	for g, name := range groups {
		x0 := marginL + gw*float64(g) + gw*barGroupPad/2
		for si, s := range series {
			v := 0.0
			if g < len(s.Values) {
				v = s.Values[g]
			}
			y := yPos(v, top)
			d.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
				x0+bw*float64(si), y, bw, marginT+plotH-y, colour(si),
				html.EscapeString(name), html.EscapeString(s.Name), num(clean(v)))
		}
		lx, ly := marginL+gw*(float64(g)+0.5), float64(marginT+plotH+14)
		d.f(`<text transform="translate(%.1f %.1f) rotate(-35)" text-anchor="end" %s>%s</text>`+"\n",
			lx, ly, fontAttrs, html.EscapeString(name))
	}
	d.f("</svg>\n")
	return d.b.String()
}
