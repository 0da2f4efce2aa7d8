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

/// Whether standard output was closed when the program started (`>&-`). Rust's runtime then
/// opens /dev/null read-write in its place (`sanitize_standard_fds`), so every write would
/// succeed and the output vanish: descriptor 1 on /dev/null, open for reading *and* writing, is
/// taken for a closed output (a shell's `> /dev/null` opens it write-only; `1<> /dev/null`, read
/// and write, is taken for closed too).
#[cfg(unix)]
pub fn stdout_is_closed() -> bool {
    use rustix::fs::{fcntl_getfl, fstat, stat, FileType, OFlags};
    let out = io::stdout();
    let Ok(flags) = fcntl_getfl(&out) else {
        return true;
    };
    let device = |s: rustix::fs::Stat| (FileType::from_raw_mode(s.st_mode), s.st_rdev);
    let null = match (fstat(&out), stat("/dev/null")) {
        (Ok(out), Ok(null)) => device(out) == device(null) && device(null).0 == FileType::CharacterDevice,
        _ => false,
    };
    null && flags & OFlags::RWMODE == OFlags::RDWR
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
