//! What the `errors` strings of a vLLM or SGLang result file say about a
//! request: succeeded, timed out, or failed otherwise.
//!
//! Both clients set `error` only on failure (vllm-project/vllm
//! `vllm/benchmarks/lib/endpoint_request_func.py`, sgl-project/sglang
//! `python/sglang/bench_serving.py` at 0033168): an HTTP status other than
//! 200 leaves the response's reason phrase (`response.reason`, e.g.
//! `"Gateway Timeout"`), an exception leaves its whole Python traceback
//! (`"".join(traceback.format_exception(...))`, whose last line is
//! `<exception type>: <message>`), and a stream that never produced a
//! chunk leaves a fixed sentence. An empty string (or `null`) is success.
//!
//! A failure is a timeout where the client marks it as one: the reason
//! phrase of HTTP 408 or 504 (`Request Timeout`, `Gateway Timeout`), or a
//! traceback whose last line names an exception type whose last dotted
//! component ends in `TimeoutError` (`TimeoutError`,
//! `asyncio.exceptions.TimeoutError`,
//! `aiohttp.client_exceptions.ServerTimeoutError`, `ConnectionTimeoutError`,
//! `SocketTimeoutError`). Every other failure is an error. The rule reads
//! the client's own marking; it never guesses from words inside a message.

/// What one request's `errors` entry says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestError {
    /// Empty string or `null`: the request succeeded.
    None,
    /// A failure the client marks as a timeout.
    Timeout,
    /// Any other failure.
    Other,
}

impl RequestError {
    /// True when the request succeeded.
    pub fn is_none(self) -> bool {
        self == RequestError::None
    }
}

/// HTTP reason phrases of the timeout statuses (RFC 9110: 408, 504).
const TIMEOUT_REASONS: [&str; 2] = ["Request Timeout", "Gateway Timeout"];

/// Classifies one `errors` entry (see the module documentation).
pub fn classify(text: &str) -> RequestError {
    if text.is_empty() {
        return RequestError::None;
    }
    let trimmed = text.trim();
    if TIMEOUT_REASONS.contains(&trimmed) {
        return RequestError::Timeout;
    }
    let last = trimmed.lines().last().unwrap_or("").trim();
    let ty = last.split(':').next().unwrap_or("");
    let is_type = !ty.is_empty()
        && ty
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    let name = ty.rsplit('.').next().unwrap_or("");
    if is_type && name.ends_with("TimeoutError") {
        RequestError::Timeout
    } else {
        RequestError::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clients_markings() {
        assert_eq!(classify(""), RequestError::None);
        for t in [
            "Gateway Timeout",
            "Request Timeout",
            "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n    await g()\nasyncio.exceptions.TimeoutError\n",
            "Traceback (most recent call last):\n  ...\naiohttp.client_exceptions.ServerTimeoutError: Timeout on reading data from socket\n",
            "TimeoutError",
        ] {
            assert_eq!(classify(t), RequestError::Timeout, "{t}");
        }
        for t in [
            "Internal Server Error",
            "Never received a valid chunk to calculate TTFT.This response will be marked as failed!",
            "Traceback (most recent call last):\n  ...\naiohttp.client_exceptions.ClientConnectorError: Cannot connect (timeout while resolving)\n",
            "the request timed out",
            "Timeout",
            "x TimeoutError",
        ] {
            assert_eq!(classify(t), RequestError::Other, "{t}");
        }
    }
}
