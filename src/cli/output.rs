//! Buffered standard output that tells a closed pipe (`run … | head -1`) from other write
//! errors instead of panicking as `println!` does.

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
