//! Buffered standard output that tells a closed pipe (`run … | head -1`) from other write
//! errors instead of panicking as `println!` does; standard error written without panicking.

use flink_state_sim::engine::error::escape_line;
use serde::Serialize;
use std::io::{self, BufWriter, Stdout, Write};

/// Why writing failed.
pub enum WriteFailure {
    /// The reader went away (EPIPE): stop quietly, as other command-line tools do.
    ClosedPipe,
    /// Anything else (a full disk): report it.
    Other(io::Error),
}

impl From<io::Error> for WriteFailure {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            WriteFailure::ClosedPipe
        } else {
            WriteFailure::Other(e)
        }
    }
}

/// Writes one line to standard error. A failure to write there is ignored: there is nowhere left
/// to report it, and the exit status still says what happened (`eprintln!` would panic).
pub fn report(text: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{text}").and_then(|()| err.flush());
}

/// Whether standard output is closed (`>&-`). Rust's standard output then drops every write
/// and reports success, so it is asked once, before anything is written or opened.
#[cfg(unix)]
pub fn stdout_is_closed() -> bool {
    use std::os::fd::AsFd;
    // dup(2) fails with EBADF on a closed descriptor; the copy is closed again at once.
    io::stdout().as_fd().try_clone_to_owned().is_err()
}

#[cfg(not(unix))]
pub fn stdout_is_closed() -> bool {
    false
}

/// Standard output, buffered.
pub struct Out {
    inner: BufWriter<Stdout>,
}

impl Out {
    pub fn stdout() -> Self {
        Out { inner: BufWriter::with_capacity(1 << 16, io::stdout()) }
    }

    /// Writes `text` and a newline.
    pub fn line(&mut self, text: &str) -> Result<(), WriteFailure> {
        self.inner.write_all(text.as_bytes())?;
        self.inner.write_all(b"\n")?;
        Ok(())
    }

    /// Writes a line of human-readable output that may hold user text (a trace line, a result
    /// row, a path): control and invisible characters escaped ([`escape_line`]), so a value
    /// cannot move the cursor, color the terminal or forge a line.
    pub fn text(&mut self, text: &str) -> Result<(), WriteFailure> {
        self.line(&escape_line(text))
    }

    /// Writes `value` as one line of JSON.
    pub fn json_line<T: Serialize>(&mut self, value: &T) -> Result<(), WriteFailure> {
        serde_json::to_writer(&mut self.inner, value).map_err(|e| match e.io_error_kind() {
            Some(kind) => WriteFailure::from(io::Error::from(kind)),
            None => WriteFailure::Other(io::Error::other(e)),
        })?;
        self.inner.write_all(b"\n")?;
        Ok(())
    }

    /// The writer, for formats that write themselves (CSV).
    pub fn writer(&mut self) -> &mut impl Write {
        &mut self.inner
    }

    pub fn flush(&mut self) -> Result<(), WriteFailure> {
        self.inner.flush()?;
        Ok(())
    }
}
