//! A text connection for a short conversation: the one-shot commands (`reversi account`,
//! `token`, `history`, `export`, `tournament list|standings|register`) open one, say a
//! line or two and read the answer. Each command reads the lines it wants in its own
//! module (an inherent `impl Talk` there); what they share is here.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

/// How long a conversation waits for the server's next line.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// One text connection, read line by line.
pub struct Talk {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Talk {
    /// Connects to `addr` (from `--bind`'s address, if given).
    pub fn open(addr: &str) -> Result<Talk, String> {
        let stream = reversi_client::connection::connect(addr)?;
        let _ = stream.set_read_timeout(Some(ANSWER_TIMEOUT));
        let reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        Ok(Talk {
            writer: stream,
            reader,
        })
    }

    /// Sends one line (never logged: it may hold a password or a token).
    pub fn say(&mut self, line: &str) -> Result<(), String> {
        (self.writer.write_all(format!("{line}\n").as_bytes()))
            .map_err(|e| format!("the server closed the connection: {e}"))
    }

    /// The next line that is not a ping (pings are answered); `ERROR` and the end of the
    /// connection are errors.
    pub fn line(&mut self) -> Result<String, String> {
        loop {
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Ok(0) => return Err("the server closed the connection".to_owned()),
                Ok(_) => {}
                Err(e) => return Err(format!("reading the server failed: {e}")),
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if let Some(why) = line.strip_prefix("ERROR ") {
                return Err(format!("the server refused: {why}"));
            }
            if let Some(ping) = line.strip_prefix("GAME PING ") {
                self.say(&format!("GAME PONG {ping}"))?;
                continue;
            }
            return Ok(line.to_owned());
        }
    }
}
