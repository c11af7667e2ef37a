//! The latency plots of one point as inline SVG, drawn with `plotters`'
//! SVG backend: the TTFT and TPOT empirical CDFs, zoomed to the data, with
//! the SLO budget as a vertical line (or marked at the edge it lies beyond)
//! and p50/p95/p99 marked, and the TTFT of each request over
//! the point's time window with failed requests marked.

use plotters::prelude::*;

use crate::report::page::{Cdf, CdfPoint, Marks, Timeline, TimelinePoint};

/// Width and height of every plot, pixels.
pub const SIZE: (u32, u32) = (560, 300);

const OK: RGBColor = RGBColor(31, 92, 168);
const BUDGET: RGBColor = RGBColor(200, 40, 40);
const MARK: RGBColor = RGBColor(90, 90, 90);

/// The points of a CDF the report gives numbers for (a saved report's
/// null reads as NaN).
fn pairs(points: &[CdfPoint]) -> Vec<(f64, f64)> {
    points
        .iter()
        .filter(|p| !p.0.is_nan() && !p.1.is_nan())
        .map(|p| (p.0, p.1))
        .collect()
}

fn upper(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        1.0
    } else {
        x * 1.08
    }
}

/// The x range of a CDF: the data's own, padded by 8% of its span (by 2%
/// of the value when every value is the same), and from 0 when the padding
/// would cross it; `(0, 1)` without data. A budget outside it is marked at
/// the edge, so that a distribution between 258 and 262 ms fills the plot
/// instead of being a line at the edge of a 0 to 300 ms axis.
pub fn cdf_range(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut mn, mut mx) = (f64::INFINITY, f64::NEG_INFINITY);
    for x in xs.filter(|x| x.is_finite()) {
        mn = mn.min(x);
        mx = mx.max(x);
    }
    if mn > mx {
        return (0.0, 1.0);
    }
    let span = mx - mn;
    let pad = if span > 0.0 {
        span * 0.08
    } else {
        (mx.abs() * 0.02).max(1e-6)
    };
    let lo = if mn >= 0.0 && mn - pad < 0.0 {
        0.0
    } else {
        mn - pad
    };
    (lo, mx + pad)
}

/// An empirical CDF: `cdf` its points (value, share), `marks` the
/// percentiles, `budget` the SLO line (drawn where it is when it falls in
/// the data's range, [`cdf_range`]; otherwise marked at the edge it lies
/// beyond, with its value).
pub fn cdf_svg(
    title: &str,
    unit: &str,
    cdf: &Cdf,
    marks: &Marks,
    budget: Option<f64>,
) -> Result<String, String> {
    let pts = pairs(&cdf.points);
    let n = cdf.n;
    let (xmin, xmax) = cdf_range(pts.iter().map(|p| p.0));
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(44)
            .build_cartesian_2d(xmin..xmax, 0f64..1.0f64)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(unit)
            .y_desc("share of ok requests")
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| e.to_string())?;
        // A step function: each value raises the share to its rank.
        let mut steps = Vec::with_capacity(pts.len() * 2 + 1);
        let mut prev = 0.0;
        for (x, y) in &pts {
            steps.push((*x, prev));
            steps.push((*x, *y));
            prev = *y;
        }
        chart
            .draw_series(LineSeries::new(steps, OK.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(format!("{n} ok requests"))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], OK.stroke_width(2)));
        match budget {
            Some(b) if (xmin..=xmax).contains(&b) => {
                chart
                    .draw_series(LineSeries::new(
                        vec![(b, 0.0), (b, 1.0)],
                        BUDGET.stroke_width(2),
                    ))
                    .map_err(|e| e.to_string())?
                    .label(format!("SLO budget {b} {unit}"))
                    .legend(|(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], BUDGET.stroke_width(2))
                    });
            }
            Some(b) => {
                // Off the axis: a thick stroke on the edge it lies beyond,
                // with an arrow and the value.
                let right = b > xmax;
                let edge = if right { xmax } else { xmin };
                let (label, dx) = if right {
                    (format!("budget {b} {unit} \u{2192}"), -118)
                } else {
                    (format!("\u{2190} budget {b} {unit}"), 6)
                };
                chart
                    .draw_series(LineSeries::new(
                        vec![(edge, 0.3), (edge, 0.7)],
                        BUDGET.stroke_width(4),
                    ))
                    .map_err(|e| e.to_string())?
                    .label(format!(
                        "SLO budget {b} {unit}, {} the axis",
                        if right { "right of" } else { "left of" }
                    ))
                    .legend(|(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], BUDGET.stroke_width(4))
                    });
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((edge, 0.72))
                            + Text::new(
                                label,
                                (dx, -4),
                                ("sans-serif", 11).into_font().color(&BUDGET),
                            ),
                    ))
                    .map_err(|e| e.to_string())?;
            }
            None => {}
        }
        for (name, share, mark) in [
            ("p50", 0.5, marks.p50),
            ("p95", 0.95, marks.p95),
            ("p99", 0.99, marks.p99),
        ] {
            if let Some(x) = mark {
                chart
                    .draw_series(PointSeries::of_element(
                        vec![(x, share)],
                        4,
                        MARK.filled(),
                        &|c, s, st| {
                            EmptyElement::at(c)
                                + Circle::new((0, 0), s, st)
                                + Text::new(name.to_string(), (6, -14), ("sans-serif", 11))
                        },
                    ))
                    .map_err(|e| e.to_string())?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// The TTFT of each request against its send time: `timeline`'s points
/// are (t, TTFT when known, status); failed requests (no TTFT or a status
/// other than ok) are drawn as crosses on the x axis or at their TTFT, and
/// a request without a time (a saved report's null, read as NaN) is not
/// drawn.
pub fn timeline_svg(
    title: &str,
    timeline: &Timeline,
    budget: Option<f64>,
) -> Result<String, String> {
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for TimelinePoint(t, ttft, st) in &timeline.points {
        let (t, ttft) = (*t, *ttft);
        if t.is_nan() {
            continue;
        }
        if st == "ok" {
            if let Some(y) = ttft {
                ok.push((t, y));
            }
        } else {
            bad.push((t, ttft.unwrap_or(0.0)));
        }
    }
    let xmax = upper(ok.iter().chain(&bad).map(|p| p.0).fold(0.0, f64::max));
    let ymax = upper(
        ok.iter()
            .chain(&bad)
            .map(|p| p.1)
            .fold(budget.unwrap_or(0.0), f64::max),
    );
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(44)
            .build_cartesian_2d(0f64..xmax, 0f64..ymax)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("seconds since the point's first request")
            .y_desc("TTFT (s)")
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(ok.iter().map(|p| Circle::new(*p, 2, OK.mix(0.7).filled())))
            .map_err(|e| e.to_string())?
            .label("ok")
            .legend(|(x, y)| Circle::new((x + 9, y), 3, OK.filled()));
        chart
            .draw_series(
                bad.iter()
                    .map(|p| Cross::new(*p, 4, BUDGET.stroke_width(2))),
            )
            .map_err(|e| e.to_string())?
            .label("failed, timed out or cancelled")
            .legend(|(x, y)| Cross::new((x + 9, y), 4, BUDGET.stroke_width(2)));
        if let Some(b) = budget {
            chart
                .draw_series(LineSeries::new(
                    vec![(0.0, b), (xmax, b)],
                    BUDGET.mix(0.6).stroke_width(1),
                ))
                .map_err(|e| e.to_string())?
                .label(format!("TTFT budget {b} s"))
                .legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], BUDGET.stroke_width(1))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cdf(xs: &[f64]) -> Cdf {
        let n = xs.len();
        let points: Vec<CdfPoint> = xs
            .iter()
            .enumerate()
            .map(|(i, x)| CdfPoint(*x, (i + 1) as f64 / n as f64))
            .collect();
        Cdf {
            n,
            shown: n,
            points,
        }
    }

    #[test]
    fn the_axis_is_the_datas_and_an_outside_budget_is_marked_at_the_edge() {
        let (lo, hi) = cdf_range([258.0, 259.5, 262.0].into_iter());
        assert!(
            (lo - 257.68).abs() < 1e-9 && (hi - 262.32).abs() < 1e-9,
            "{lo} {hi}"
        );
        // From 0 when the padding would cross it; a constant is centred.
        assert_eq!(cdf_range([1.0, 100.0].into_iter()).0, 0.0);
        let (lo, hi) = cdf_range([5.0, 5.0].into_iter());
        assert!(lo < 5.0 && hi > 5.0 && hi - lo < 0.3);
        assert_eq!(cdf_range(std::iter::empty()), (0.0, 1.0));

        let c = cdf(&[258.0, 259.5, 262.0]);
        let marks = Marks {
            p50: Some(259.5),
            ..Marks::default()
        };
        let beyond = cdf_svg("TPOT", "ms", &c, &marks, Some(300.0)).unwrap();
        assert!(
            beyond.contains("SLO budget 300 ms, right of the axis"),
            "{beyond}"
        );
        assert!(beyond.contains("budget 300 ms \u{2192}"));
        // The axis is labelled in the data's range, not from 0 to the budget.
        let labels: Vec<f64> = beyond
            .split("</text>")
            .filter_map(|t| t.rsplit('>').next()?.trim().parse().ok())
            .collect();
        assert!(labels.contains(&260.0), "{labels:?}");
        assert!(
            labels
                .iter()
                .all(|l| *l <= 1.0 || (257.0..=263.0).contains(l)),
            "{labels:?}"
        );
        let below = cdf_svg("TPOT", "ms", &c, &marks, Some(100.0)).unwrap();
        assert!(below.contains("SLO budget 100 ms, left of the axis"));
        let inside = cdf_svg("TPOT", "ms", &c, &marks, Some(261.0)).unwrap();
        assert!(inside.contains("SLO budget 261 ms<") || inside.contains("SLO budget 261 ms"));
        assert!(!inside.contains("of the axis"));
    }
}
