//! Point metrics, recomputed from client records, with numpy's default
//! percentile ([`crate::numpy::percentile_sorted`], re-exported here).

pub use crate::numpy::{percentile, percentile_sorted};

/// Recomputed metrics of one point.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct PointMetrics {
    /// Non-warmup requests.
    pub measured: u64,
    /// Non-warmup requests with status ok.
    pub ok: u64,
    /// Non-warmup requests with status error.
    pub errors: u64,
    /// Non-warmup requests with status timeout.
    pub timeouts: u64,
    /// Non-warmup requests with status cancelled.
    pub cancelled: u64,
    /// Latest finish minus earliest send over non-warmup requests, seconds.
    pub window_s: Option<f64>,
    /// The send rate of the non-warmup requests, requests/s: requests minus
    /// one over the span of their send times.
    pub measured_rate: Option<f64>,
    /// ok / window.
    pub completed_rate: Option<f64>,
    /// Output tokens of ok requests / window.
    pub output_throughput: Option<f64>,
    /// TTFT p50, p95, p99 in seconds.
    pub ttft_s: [Option<f64>; 3],
    /// TPOT p50, p95, p99 in milliseconds.
    pub tpot_ms: [Option<f64>; 3],
    /// Non-warmup ok requests within the SLO.
    pub within_limits: u64,
}

/// The raw series of a point kept for its published percentiles and plots:
/// sorted TTFTs (s) and TPOTs (ms) of the ok measured requests, shared
/// (the table's row and the point's summary hold the same vectors, never a
/// copy). The timeline is drawn from the records the
/// point keeps ([`sample_timeline`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PointSeries {
    /// TTFT of each ok request, seconds, ascending.
    pub ttft_s: std::sync::Arc<Vec<f64>>,
    /// TPOT of each ok request with more than one output token, ms, ascending.
    pub tpot_ms: std::sync::Arc<Vec<f64>>,
}

/// Most points of one timeline the page shows.
pub const MAX_TIMELINE_POINTS: usize = 2000;

/// A point's timeline as the page shows it: every failed, timed-out or
/// cancelled request up to half of the points, and an evenly strided
/// sample of the ok ones for the rest, in record order. Sampled when the
/// point's row is made, so that a row holds at most
/// [`MAX_TIMELINE_POINTS`] entries, not one per request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SampledTimeline {
    /// Measured requests of the point.
    pub n: usize,
    /// Every `stride`-th ok request is shown.
    pub stride: usize,
    /// The earliest send time, when there is a request.
    pub t0: Option<f64>,
    /// (send time, TTFT when known, status) of the requests shown.
    pub points: Vec<(f64, Option<f64>, crate::run::qualification::Status)>,
}

/// One measured request as the timeline draws it: send time, TTFT when
/// known, status.
pub type TimelineRecord = (f64, Option<f64>, crate::run::qualification::Status);

/// Samples the measured requests `series()` yields, in record order (see
/// [`SampledTimeline`]). `series` is called once for each of two passes, so
/// that no list of every request is made.
pub fn sample_timeline<I: Iterator<Item = TimelineRecord>>(
    series: impl Fn() -> I,
    max: usize,
) -> SampledTimeline {
    use crate::run::qualification::Status;
    let (mut n, mut ok, mut bad) = (0usize, 0usize, 0usize);
    let mut t0 = f64::INFINITY;
    for (at, _, status) in series() {
        n += 1;
        t0 = t0.min(at);
        if status == Status::Ok {
            ok += 1;
        } else {
            bad += 1;
        }
    }
    let bad_shown = bad.min(max / 2);
    let room = max - bad_shown;
    let stride = ok.div_ceil(room.max(1)).max(1);
    // Every `stride`-th ok request (from the first) and the first
    // `bad_shown` others, in record order.
    let (mut ok_rank, mut bad_rank) = (0usize, 0usize);
    let mut points = Vec::new();
    for r in series() {
        let keep = if r.2 == Status::Ok {
            ok_rank += 1;
            (ok_rank - 1) % stride == 0
        } else {
            bad_rank += 1;
            bad_rank <= bad_shown
        };
        if keep {
            points.push(r);
        }
    }
    SampledTimeline {
        n,
        stride,
        t0: t0.is_finite().then_some(t0),
        points,
    }
}

/// The percentiles every point publishes.
pub const PERCENTILES: [f64; 3] = [50.0, 95.0, 99.0];

/// Accumulates the metric vectors of one point while its records stream past.
#[derive(Debug, Default)]
pub struct MetricsAccumulator {
    m: PointMetrics,
    first_sent: Option<f64>,
    last_sent: Option<f64>,
    last_finished: Option<f64>,
    output_tokens_ok: u128,
    ttft: Vec<f64>,
    tpot: Vec<f64>,
}

impl MetricsAccumulator {
    /// Adds one non-warmup request. Times are in seconds; `slo_*` in seconds.
    /// For an ok request, returns its TTFT (s), TPOT (s, when it has one)
    /// and whether it is within the SLO.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        status: crate::run::qualification::Status,
        sent_at: f64,
        first_token_at: Option<f64>,
        finished_at: Option<f64>,
        output_tokens: u64,
        slo_ttft_s: f64,
        slo_tpot_s: f64,
    ) -> Option<(f64, Option<f64>, bool)> {
        use crate::run::qualification::Status;
        self.m.measured += 1;
        self.first_sent = Some(self.first_sent.map_or(sent_at, |f| f.min(sent_at)));
        self.last_sent = Some(self.last_sent.map_or(sent_at, |l| l.max(sent_at)));
        if let Some(fin) = finished_at {
            self.last_finished = Some(self.last_finished.map_or(fin, |l| l.max(fin)));
        }
        match status {
            Status::Ok => {}
            Status::Error => self.m.errors += 1,
            Status::Timeout => self.m.timeouts += 1,
            Status::Cancelled => self.m.cancelled += 1,
        }
        if status != Status::Ok {
            return None;
        }
        let (Some(ft), Some(fin)) = (first_token_at, finished_at) else {
            return None;
        };
        self.m.ok += 1;
        self.output_tokens_ok += output_tokens as u128;
        let ttft = ft - sent_at;
        self.ttft.push(ttft);
        let mut within = ttft <= slo_ttft_s;
        let mut tpot_s = None;
        if output_tokens > 1 {
            let tpot = (fin - ft) / (output_tokens - 1) as f64;
            self.tpot.push(tpot * 1000.0);
            within &= tpot <= slo_tpot_s;
            tpot_s = Some(tpot);
        }
        if within {
            self.m.within_limits += 1;
        }
        Some((ttft, tpot_s, within))
    }

    /// The window ends no earlier than `end` (a derived point whose failed
    /// requests have no end: the client's own end of the benchmark).
    pub fn end_no_earlier_than(&mut self, end: f64) {
        self.last_finished = Some(self.last_finished.map_or(end, |l| l.max(end)));
    }

    /// Sorts the vectors, computes percentiles and rates, drops the vectors.
    pub fn finish(self) -> PointMetrics {
        self.finish_with_series().0
    }

    /// Like [`MetricsAccumulator::finish`], and keeps the series for plots.
    pub fn finish_with_series(mut self) -> (PointMetrics, PointSeries) {
        if let (Some(s), Some(f)) = (self.first_sent, self.last_finished) {
            let w = f - s;
            if w > 0.0 {
                self.m.window_s = Some(w);
                self.m.completed_rate = Some(self.m.ok as f64 / w);
                self.m.output_throughput = Some(self.output_tokens_ok as f64 / w);
            }
        }
        if let (Some(a), Some(b)) = (self.first_sent, self.last_sent) {
            if self.m.measured >= 2 && b > a {
                self.m.measured_rate = Some((self.m.measured - 1) as f64 / (b - a));
            }
        }
        self.ttft.sort_by(f64::total_cmp);
        self.tpot.sort_by(f64::total_cmp);
        for (i, p) in PERCENTILES.iter().enumerate() {
            self.m.ttft_s[i] = percentile_sorted(&self.ttft, *p);
            self.m.tpot_ms[i] = percentile_sorted(&self.tpot, *p);
        }
        let series = PointSeries {
            ttft_s: std::sync::Arc::new(std::mem::take(&mut self.ttft)),
            tpot_ms: std::sync::Arc::new(std::mem::take(&mut self.tpot)),
        };
        (self.m, series)
    }
}

/// One row of the measured-points table, recomputed from the records.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PointRow {
    /// Point name.
    pub name: String,
    /// Offered rate as declared.
    pub offered_rate: f64,
    /// Send rate measured from the records.
    pub measured_rate: Option<f64>,
    /// Declared measured requests.
    pub requests: u64,
    /// Recomputed metrics.
    pub metrics: PointMetrics,
    /// The sorted TTFT and TPOT values behind the metrics, for published
    /// percentiles and plots (not in the table's JSON); its timeline is
    /// empty (see `timeline`).
    #[serde(skip)]
    pub series: PointSeries,
    /// The timeline the page shows, sampled.
    #[serde(skip)]
    pub timeline: SampledTimeline,
}
