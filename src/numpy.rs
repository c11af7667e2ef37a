//! numpy's statistics, reproduced operation for operation so that a value
//! computed by `np.mean`, `np.median`, `np.std` or `np.percentile` over a
//! Python list of floats is reproduced to the last bit (checked against
//! numpy itself in tests/peers_numpy.rs and tests/qualify_numpy.rs). One
//! module in the lowest layer, used by `run::metrics` (the claims' percentiles)
//! and `peers` (the benchmark clients' statistics).
//!
//! - `np.add.reduce` over a contiguous float64 array is numpy's pairwise sum
//!   of all its elements (fewer than 8 added in order from 0; up to 128 in 8
//!   interleaved accumulators combined as `((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))`
//!   and the rest added in order; above 128 the two halves, split on a
//!   multiple of 8, summed separately and added).
//! - `np.mean(a)` is that sum divided by `len(a)`.
//! - `np.std(a)` (population, `ddof=0`) is
//!   `sqrt(sum((a - mean)**2) / len(a))` with the same sums.
//! - `np.median(a)` is the middle element, or the mean of the two middle
//!   elements (`(lo + hi) / 2`), of the sorted values: not the 50th
//!   percentile, which interpolates differently.
//! - `np.percentile(a, p)` (numpy's default, `method="linear"`) is
//!   [`percentile_sorted`], reproduced operation for operation, including
//!   numpy's two-sided interpolation (`b - (b-a)(1-t)` when `t >= 0.5`).
//!
//! The benchmark clients call these on `list or 0`: an empty list gives 0.0
//! for every statistic, which [`Stats`] reproduces.

/// numpy's default percentile (`np.percentile(v, p)`, linear interpolation
/// between closest ranks). `sorted` must be sorted ascending and free of NaN.
/// Returns `None` for an empty slice.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let q = p / 100.0;
    let virtual_index = (n as f64 - 1.0) * q;
    let prev = virtual_index.floor().clamp(0.0, (n - 1) as f64);
    let i = prev as usize;
    let j = (i + 1).min(n - 1);
    let t = virtual_index - prev;
    let (a, b) = (sorted[i], sorted[j]);
    let d = b - a;
    Some(if t >= 0.5 {
        b - d * (1.0 - t)
    } else {
        a + d * t
    })
}

/// [`percentile_sorted`] on unsorted data (sorts a copy).
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    percentile_sorted(&v, p)
}

const PW_BLOCKSIZE: usize = 128;

/// numpy's pairwise summation of `a` (the inner loop of `np.add.reduce`).
fn pairwise(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for x in a {
            res += *x;
        }
        res
    } else if n <= PW_BLOCKSIZE {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise(&a[..n2]) + pairwise(&a[n2..])
    }
}

/// `np.sum(a)` of a float64 array (0.0 when empty): the pairwise sum of
/// all elements from the identity 0.
pub fn sum(a: &[f64]) -> f64 {
    pairwise(a)
}

/// `np.mean(a or 0)`.
pub fn mean(a: &[f64]) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    sum(a) / a.len() as f64
}

/// `np.std(a or 0)` (population standard deviation).
pub fn std(a: &[f64]) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    let n = a.len() as f64;
    let m = sum(a) / n;
    let sq: Vec<f64> = a.iter().map(|x| (x - m) * (x - m)).collect();
    (sum(&sq) / n).sqrt()
}

/// `np.median(a or 0)` of values already sorted ascending.
pub fn median_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// The statistics of one metric's values, as the clients compute them.
#[derive(Debug, Clone)]
pub struct Stats {
    /// The values in the order the client collected them (sums depend on it).
    values: Vec<f64>,
    /// The same values sorted ascending.
    sorted: Vec<f64>,
}

impl Stats {
    /// Takes the values in collection order.
    pub fn new(values: Vec<f64>) -> Stats {
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        Stats { values, sorted }
    }
    /// How many values.
    pub fn len(&self) -> usize {
        self.values.len()
    }
    /// True when there are none (every statistic is then 0.0).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
    /// `np.mean(v or 0)`.
    pub fn mean(&self) -> f64 {
        mean(&self.values)
    }
    /// `np.std(v or 0)`.
    pub fn std(&self) -> f64 {
        std(&self.values)
    }
    /// `np.median(v or 0)`.
    pub fn median(&self) -> f64 {
        median_sorted(&self.sorted)
    }
    /// `np.percentile(v or 0, p)`.
    pub fn percentile(&self, p: f64) -> f64 {
        percentile_sorted(&self.sorted, p).unwrap_or(0.0)
    }
    /// `np.max(v or 0)`.
    pub fn max(&self) -> f64 {
        self.sorted.last().copied().unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases() {
        assert_eq!(mean(&[]), 0.0);
        assert_eq!(mean(&[1.0, 2.0, 3.0, 4.0]), 2.5);
        assert_eq!(std(&[1.0, 2.0, 3.0, 4.0]), 1.118033988749895);
        assert_eq!(median_sorted(&[1.0, 2.0, 3.0, 4.0]), 2.5);
        assert_eq!(median_sorted(&[1.0, 2.0, 3.0]), 2.0);
        // np.sum([0.1]*10) == 1.0 (pairwise), a naive left-to-right sum gives 0.9999999999999999
        assert_eq!(sum(&[0.1; 10]), 1.0);
        let naive: f64 = [0.1f64; 10].iter().sum();
        assert_ne!(naive, 1.0);
    }

    #[test]
    fn percentile_basics() {
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(percentile(&[3.0], 99.0), Some(3.0));
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0], 50.0), Some(2.5));
        assert_eq!(percentile(&[4.0, 1.0, 3.0, 2.0], 0.0), Some(1.0));
        assert_eq!(percentile(&[4.0, 1.0, 3.0, 2.0], 100.0), Some(4.0));
        // numpy: np.percentile([1,2,3,4,5,6,7,8,9,10], 95) == 9.549999999999999
        assert_eq!(
            percentile(&[1., 2., 3., 4., 5., 6., 7., 8., 9., 10.], 95.0),
            Some(9.549999999999999)
        );
    }
}
