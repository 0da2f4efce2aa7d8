//! Progress on standard error for runs longer than a second.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Reports how far a run is, at most twice a second, once it has run for a second.
pub struct Progress {
    total: u64,
    started: Instant,
    last: Option<Instant>,
    /// Steps between clock reads.
    every: u64,
    terminal: bool,
}

impl Progress {
    pub fn start(total: u64) -> Self {
        Progress { total, started: Instant::now(), last: None, every: 4096, terminal: std::io::stderr().is_terminal() }
    }

    /// `done` steps have run.
    pub fn tick(&mut self, done: u64) {
        if !done.is_multiple_of(self.every) {
            return;
        }
        let now = Instant::now();
        let elapsed = now - self.started;
        let quiet_since = self.last.map_or(elapsed, |l| now - l);
        let gap = if self.terminal { Duration::from_millis(500) } else { Duration::from_secs(5) };
        if elapsed < Duration::from_secs(1) || quiet_since < gap {
            return;
        }
        self.last = Some(now);
        let rate = done as f64 / elapsed.as_secs_f64();
        let pct = if self.total > 0 { done as f64 * 100.0 / self.total as f64 } else { 100.0 };
        let line = format!("[run] {pct:5.1}%  {done}/{} steps  {:.2} M steps/s", self.total, rate / 1e6);
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal { write!(err, "\r{line}") } else { writeln!(err, "{line}") };
    }

    /// Ends the progress line, if one was shown.
    pub fn done(&self) {
        if self.last.is_some() && self.terminal {
            let _ = writeln!(std::io::stderr());
        }
    }

    pub fn elapsed_secs(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}
