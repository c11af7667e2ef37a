//! The latency plots of one point as inline SVG, drawn with `plotters`'
//! SVG backend: the TTFT and TPOT empirical CDFs with the SLO budget as a
//! vertical line and p50/p95/p99 marked, and the TTFT of each request over
//! the point's time window with failed requests marked.

use plotters::prelude::*;
use serde_json::Value;

/// Width and height of every plot, pixels.
pub const SIZE: (u32, u32) = (560, 300);

const OK: RGBColor = RGBColor(31, 92, 168);
const BUDGET: RGBColor = RGBColor(200, 40, 40);
const MARK: RGBColor = RGBColor(90, 90, 90);

fn pairs(v: &Value) -> Vec<(f64, f64)> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| Some((p.get(0)?.as_f64()?, p.get(1)?.as_f64()?)))
                .collect()
        })
        .unwrap_or_default()
}

fn upper(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        1.0
    } else {
        x * 1.08
    }
}

/// An empirical CDF: `cdf` is `{"points": [[x, share], ...]}`, `marks` the
/// percentiles, `budget` the SLO line.
pub fn cdf_svg(
    title: &str,
    unit: &str,
    cdf: &Value,
    marks: &Value,
    budget: Option<f64>,
) -> Result<String, String> {
    let pts = pairs(&cdf["points"]);
    let n = cdf["n"].as_u64().unwrap_or(0);
    let xmax = upper(
        pts.iter()
            .map(|p| p.0)
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
            .build_cartesian_2d(0f64..xmax, 0f64..1.0f64)
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
        if let Some(b) = budget {
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
        for (name, share) in [("p50", 0.5), ("p95", 0.95), ("p99", 0.99)] {
            if let Some(x) = marks[name].as_f64() {
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

/// The TTFT of each request against its send time: `timeline` is
/// `{"points": [[t, ttft|null, status], ...]}`; failed requests (no TTFT
/// or a status other than ok) are drawn as crosses on the x axis or at
/// their TTFT.
pub fn timeline_svg(title: &str, timeline: &Value, budget: Option<f64>) -> Result<String, String> {
    let raw = timeline["points"].as_array().cloned().unwrap_or_default();
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for p in &raw {
        let (Some(t), st) = (
            p.get(0).and_then(Value::as_f64),
            p.get(2).and_then(Value::as_str).unwrap_or(""),
        ) else {
            continue;
        };
        let ttft = p.get(1).and_then(Value::as_f64);
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
