//! A thread that reads stdin line by line into a channel, for the line
//! modes of `reversi play` (both protocols).

use std::io::BufRead;
use std::sync::mpsc::Sender;
use std::thread;

/// Sends `line(text)` for each line of stdin, then `eof` at its end.
pub fn spawn<T: Send + 'static>(tx: Sender<T>, line: fn(String) -> T, eof: T) {
    thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut lock = stdin.lock();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match lock.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&buf).into_owned();
                    if tx.send(line(text)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = tx.send(eof);
    });
}
