//! The binary Reversi protocol on a TCP connection, as a transport of the
//! game-independent client: PDUs in and out through the codec of
//! `reversi-pdu`, translated by [`Translator`] to and from the text
//! protocol's messages. Both halves share the translator, as the game it
//! keeps is both what refuses a move here and what checks the server's.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard};

use reversi_pdu::{Direction, FrameBuffer, MAX_PDU_LEN};
use reversi_text::{ClientMessage, ServerMessage};

use super::translate::{Heard, Incoming, Outgoing, Translator};
use crate::text::Event;

type Shared = Arc<Mutex<Translator>>;

fn lock(shared: &Shared) -> MutexGuard<'_, Translator> {
    // A panic elsewhere cannot leave the translator half-changed for us to mind.
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

/// Opens a connection to `addr`; the error is one line naming the address tried.
pub fn open(addr: &str) -> Result<(BinaryReader, BinaryWriter), String> {
    let stream = crate::connection::connect(addr)?;
    let reader = stream
        .try_clone()
        .map_err(|e| format!("could not connect to {addr}: {e}"))?;
    let shared = Shared::default();
    Ok((
        BinaryReader {
            stream: reader,
            frames: FrameBuffer::new(),
            translator: shared.clone(),
            queued: Vec::new(),
            done: false,
        },
        BinaryWriter {
            stream,
            translator: shared,
        },
    ))
}

fn write_pdu(mut stream: &TcpStream, out: Outgoing) -> io::Result<()> {
    let pdu = out.pdu();
    let mut buf = [0u8; MAX_PDU_LEN];
    let len = pdu
        .encode(&mut buf)
        .map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err.to_string()))?;
    log::debug!("sending {pdu}");
    stream.write_all(&buf[..len])
}

/// The receiving half: PDUs in, the text client's [`Event`]s out.
pub struct BinaryReader {
    stream: TcpStream,
    frames: FrameBuffer,
    translator: Shared,
    /// Events translated and not yet returned, the next last.
    queued: Vec<Event>,
    /// After EOF, `error`, `winner` or a broken PDU: nothing more is read.
    done: bool,
}

impl BinaryReader {
    /// Blocks until the next event; after the last one, EOF for ever.
    pub fn next_event(&mut self) -> Event {
        loop {
            if let Some(event) = self.queued.pop() {
                return event;
            }
            if self.done {
                return Event::Eof;
            }
            let heard = match self.frames.next(Direction::ServerToClient) {
                Ok(Some(pdu)) => {
                    log::debug!("received {pdu}");
                    let incoming = Incoming::from_pdu(&pdu).map_err(|e| e.to_string());
                    self.done =
                        matches!(incoming, Ok(Incoming::Error | Incoming::Winner(_)) | Err(_));
                    lock(&self.translator).hear(incoming)
                }
                Ok(None) => {
                    self.read_more();
                    continue;
                }
                Err(err) => {
                    self.done = true;
                    lock(&self.translator).hear(Err(err.to_string()))
                }
            };
            self.queue(heard);
        }
    }

    fn queue(&mut self, heard: Heard) {
        match heard {
            Heard::Messages(messages) => {
                let ready = messages.contains(&ServerMessage::Ready);
                let mut events: Vec<Event> = messages.into_iter().map(Event::Received).collect();
                if let Some(moves) = ready.then(|| lock(&self.translator).legal()).flatten() {
                    events.push(Event::Legal(moves));
                }
                self.queued = events.into_iter().rev().collect();
                // The server pauses after each PDU's worth: a moment to show the board.
                self.queued.insert(0, Event::Quiet);
            }
            Heard::Broken(why) => {
                // §9.3: a client that sees a violation answers error and closes.
                let _ = write_pdu(&self.stream, Outgoing::Error);
                self.done = true;
                self.queued = vec![Event::Broken(why)];
            }
        }
    }

    fn read_more(&mut self) {
        match self.stream.read(self.frames.spare_mut()) {
            Ok(0) => {
                log::debug!("EOF with {} bytes buffered", self.frames.buffered());
                self.done = true;
            }
            Ok(n) => self.frames.commit(n),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => {
                log::debug!("read failed: {err}");
                self.done = true;
            }
        }
    }
}

/// The sending half.
pub struct BinaryWriter {
    stream: TcpStream,
    translator: Shared,
}

impl BinaryWriter {
    /// Sends what `message` becomes; returns the answers given here.
    pub fn send(&mut self, message: &ClientMessage) -> io::Result<Vec<Event>> {
        let sent = lock(&self.translator).send(message);
        if let Some(pdu) = sent.pdu {
            write_pdu(&self.stream, pdu)?;
        }
        let mut answer: Vec<Event> = sent.answer.into_iter().map(Event::Received).collect();
        if let Some(why) = sent.refused {
            answer.push(Event::Refused(why));
            // The move is still to make: the same moves are legal.
            answer.extend(lock(&self.translator).legal().map(Event::Legal));
        }
        Ok(answer)
    }

    /// Closes both directions; a reader blocked on this connection wakes up with EOF.
    pub fn close(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}
