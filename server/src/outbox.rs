//! Bytes queued for a non-blocking socket, written as the socket accepts them.

use std::io::{self, Write};

/// A write buffer: [`Outbox::push`] appends, [`Outbox::flush`] writes until
/// done or WouldBlock. Never allocates more than what is pending.
#[derive(Debug, Default)]
pub struct Outbox {
    buf: Vec<u8>,
    /// How much of `buf` was already written.
    sent: usize,
}

impl Outbox {
    pub fn new() -> Outbox {
        Outbox::default()
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes still to be written.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.sent
    }

    /// The bytes still to be written (an upgrade hands them over).
    pub fn unsent(&self) -> &[u8] {
        &self.buf[self.sent..]
    }

    pub fn is_empty(&self) -> bool {
        self.pending() == 0
    }

    /// Writes as much as `sink` takes. `Ok(true)`: everything is out;
    /// `Ok(false)`: WouldBlock, wait for writable. An error is the peer's EOF.
    pub fn flush(&mut self, sink: &mut impl Write) -> io::Result<bool> {
        while self.sent < self.buf.len() {
            match sink.write(&self.buf[self.sent..]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.buf.clear();
        self.sent = 0;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes at most `room` bytes per call, then blocks.
    struct Trickle {
        got: Vec<u8>,
        room: usize,
        calls_left: usize,
    }

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.calls_left == 0 {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            self.calls_left -= 1;
            let n = buf.len().min(self.room);
            self.got.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn partial_writes_resume_where_they_stopped() {
        let mut out = Outbox::new();
        out.push(b"hello ");
        out.push(b"world");
        let mut sink = Trickle {
            got: Vec::new(),
            room: 4,
            calls_left: 2,
        };
        assert!(!out.flush(&mut sink).unwrap());
        assert_eq!(out.pending(), 3);
        sink.calls_left = 10;
        assert!(out.flush(&mut sink).unwrap());
        assert_eq!(sink.got, b"hello world");
        assert!(out.is_empty());
    }
}
