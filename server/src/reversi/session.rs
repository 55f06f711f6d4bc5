//! The session child's event loop: two sockets, the move clock and SIGTERM.

use std::io::{self, Read};
use std::net::Shutdown;
use std::time::{Duration, Instant};

use log::{debug, info, warn};
use mio::{Events, Interest, Poll, Token};
use reversi_pdu::{Colour, Direction, FrameBuffer};

use super::clock::MoveClock;
use super::record;
use super::table::Table;
use crate::config::SessionConfig;
use crate::signals::SelfPipe;
use crate::supervisor::Pair;

const SIGNAL: Token = Token(2);
/// After the last PDU, how long a client gets to close before we do (spec §12).
const LINGER: Duration = Duration::from_secs(2);
/// Stop reading from a client while this much output waits for it.
const MAX_BACKLOG: usize = 16 * 1024;
/// After our last PDU, a client that sends more than this is closed at once: discarding a
/// fast sender's stream would otherwise keep the session past its linger for as long as
/// the client likes.
const MAX_DISCARD: usize = 64 * 1024;

struct Conn {
    stream: mio::net::TcpStream,
    frames: FrameBuffer,
    /// Closed on our side.
    closed: bool,
    write_shut: bool,
    /// Reading stopped until the output backlog drains.
    paused: bool,
    /// A readable event came and reading has not yet hit WouldBlock since.
    readable: bool,
    /// The last flush stopped at WouldBlock: wait for writable.
    blocked: bool,
    /// Bytes read and thrown away after our last PDU.
    discarded: usize,
}

impl Conn {
    fn new(stream: mio::net::TcpStream) -> Conn {
        Conn {
            stream,
            frames: FrameBuffer::new(),
            closed: false,
            write_shut: false,
            paused: false,
            // Bytes may be waiting already: the first pump reads without an event.
            readable: true,
            blocked: false,
            discarded: 0,
        }
    }
}

/// Plays the session for `pair` to its end. Runs in the child.
pub fn run(config: &SessionConfig, pair: Pair, mut abort: SelfPipe) -> io::Result<()> {
    let started = Instant::now();
    let colours = if config.fixed_colours || random_bit() {
        [Colour::Black, Colour::White]
    } else {
        [Colour::White, Colour::Black]
    };
    let peers = [pair.seats[0].peer, pair.seats[1].peer];
    let mut table = Table::new(colours, peers, MoveClock::new(config.move_timeout));

    let mut poll = Poll::new()?;
    poll.registry()
        .register(abort.receiver(), SIGNAL, Interest::READABLE)?;
    let mut conns = Vec::with_capacity(2);
    let mut early = Vec::with_capacity(2);
    for (i, seat) in pair.seats.into_iter().enumerate() {
        let _ = seat.stream.set_nodelay(true);
        let mut stream = mio::net::TcpStream::from_std(seat.stream);
        poll.registry().register(
            &mut stream,
            Token(i),
            Interest::READABLE | Interest::WRITABLE,
        )?;
        conns.push(Conn::new(stream));
        early.push(seat.early);
    }
    let mut conns: [Conn; 2] = conns.try_into().map_err(|_| io::ErrorKind::Other)?;
    info!(
        "session: {} plays {}, {} plays {}",
        peers[0], colours[0], peers[1], colours[1]
    );

    table.start(Instant::now());
    for (seat, bytes) in early.iter().enumerate() {
        let spare = conns[seat].frames.spare_mut();
        let n = bytes.len().min(spare.len());
        spare[..n].copy_from_slice(&bytes[..n]);
        conns[seat].frames.commit(n);
        take_frames(&mut table, &mut conns[seat], seat);
    }
    drop(early);

    let mut events = Events::with_capacity(8);
    let mut linger_until = None;
    loop {
        // One seat's input can queue output for the other: pump until neither has work.
        for _ in 0..4 {
            for (seat, conn) in conns.iter_mut().enumerate() {
                pump(&mut table, conn, seat);
            }
            if !(0..2).any(|seat| needs_pump(&table, &conns[seat], seat)) {
                break;
            }
        }
        if table.end().is_some() {
            let deadline = *linger_until.get_or_insert_with(|| Instant::now() + LINGER);
            if conns.iter().all(|c| c.closed) {
                break;
            }
            if Instant::now() >= deadline {
                debug!("linger over; closing");
                break;
            }
        }
        let wake = [table.deadline(), linger_until].into_iter().flatten().min();
        let timeout = wake.map(|t| t.saturating_duration_since(Instant::now()));
        if let Err(e) = poll.poll(&mut events, timeout) {
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        for event in events.iter() {
            match event.token() {
                SIGNAL if abort.take().stops > 0 => {
                    warn!("SIGTERM: aborting the game");
                    table.abort();
                }
                Token(seat) if seat < 2 => {
                    if event.is_readable() || event.is_read_closed() || event.is_error() {
                        conns[seat].readable = true;
                    }
                    if event.is_writable() {
                        conns[seat].blocked = false;
                    }
                }
                _ => {}
            }
        }
        table.on_clock(Instant::now());
    }
    let record = record::Record::new(&table, started.elapsed());
    info!("game over: {record}");
    if let Some(dir) = &config.record_dir {
        match record::write_ggf(dir, &record) {
            Ok(path) => debug!("recorded as {}", path.display()),
            Err(e) => warn!("cannot write the game record into {}: {e}", dir.display()),
        }
    }
    Ok(())
}

/// One round for one connection: read what arrived and act on it, flush its output,
/// and once the game is over, close it the way spec §3.5/§12 asks.
fn pump(table: &mut Table, conn: &mut Conn, seat: usize) {
    if conn.closed {
        return;
    }
    if table.end().is_some() && table.silent[seat] {
        close(conn);
        return;
    }
    if conn.write_shut {
        // Draining after our last PDU: discard input until EOF.
        if discard_input(conn) {
            close(conn);
        }
        return;
    }
    loop {
        match table.outs[seat].flush(&mut conn.stream) {
            Ok(done) => conn.blocked = !done,
            Err(e) => {
                debug!("write to seat {seat}: {e}");
                table.on_eof(seat);
                close(conn);
                return;
            }
        }
        // Reading waits while much output is stuck for this client.
        conn.paused = table.outs[seat].pending() > MAX_BACKLOG;
        if table.end().is_some() || conn.paused || !conn.readable {
            break;
        }
        match read_frames(table, conn, seat) {
            ReadOutcome::Drained => {
                conn.readable = false;
                break;
            }
            // Send what the input produced before reading on: replies leave before
            // the read that finds WouldBlock.
            ReadOutcome::Produced => {}
            ReadOutcome::Eof => {
                table.on_eof(seat);
                close(conn);
                return;
            }
        }
    }
    if table.end().is_some() && table.outs[seat].is_empty() {
        let _ = conn.stream.shutdown(Shutdown::Write);
        conn.write_shut = true;
        if discard_input(conn) {
            close(conn);
        }
    }
}

/// Whether [`pump`] has something to do for this connection without a new event.
fn needs_pump(table: &Table, conn: &Conn, seat: usize) -> bool {
    if conn.closed {
        return false;
    }
    let out = &table.outs[seat];
    let ended = table.end().is_some();
    (!out.is_empty() && !conn.blocked)
        || (ended && (table.silent[seat] || (out.is_empty() && !conn.write_shut)))
}

enum ReadOutcome {
    /// Everything available was read (WouldBlock).
    Drained,
    /// Stopped with input perhaps left: output to send first, or the game ended.
    Produced,
    Eof,
}

fn read_frames(table: &mut Table, conn: &mut Conn, seat: usize) -> ReadOutcome {
    loop {
        let spare = conn.frames.spare_mut();
        match conn.stream.read(spare) {
            Ok(0) => return ReadOutcome::Eof,
            Ok(n) => {
                conn.frames.commit(n);
                take_frames(table, conn, seat);
                if table.end().is_some() || !table.outs[seat].is_empty() {
                    return ReadOutcome::Produced;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return ReadOutcome::Drained,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                debug!("read from seat {seat}: {e}");
                return ReadOutcome::Eof;
            }
        }
    }
}

/// Hands every complete PDU in the buffer to the table; a malformed one ends the game.
fn take_frames(table: &mut Table, conn: &mut Conn, seat: usize) {
    while table.end().is_none() {
        match conn.frames.next(Direction::ClientToServer) {
            Ok(Some(pdu)) => table.on_pdu(seat, pdu, Instant::now()),
            Ok(None) => return,
            Err(e) => {
                table.violation(seat, format!("malformed PDU: {e}"));
                conn.frames.clear();
                return;
            }
        }
    }
}

/// Reads and forgets input until WouldBlock (false) or EOF, an error, or more than
/// [`MAX_DISCARD`] bytes in all (true).
fn discard_input(conn: &mut Conn) -> bool {
    let mut buf = [0u8; 512];
    loop {
        match conn.stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(n) => {
                conn.discarded += n;
                if conn.discarded > MAX_DISCARD {
                    debug!("still sending after the game ended; closing");
                    return true;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return false,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return true,
        }
    }
}

fn close(conn: &mut Conn) {
    if !conn.closed {
        conn.closed = true;
        let _ = conn.stream.shutdown(Shutdown::Both);
    }
}

/// One random bit from the kernel (the time and pid if getrandom fails).
fn random_bit() -> bool {
    let mut byte = 0u8;
    // SAFETY: getrandom writes at most one byte into `byte`.
    let n = unsafe { libc::getrandom((&mut byte as *mut u8).cast(), 1, libc::GRND_NONBLOCK) };
    if n == 1 {
        return byte & 1 == 1;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    (nanos ^ std::process::id()) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn discarding_gives_up_on_a_client_that_keeps_sending() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (served, _) = listener.accept().unwrap();
        served.set_nonblocking(true).unwrap();
        let mut conn = Conn::new(mio::net::TcpStream::from_std(served));
        client.write_all(&[0; MAX_DISCARD + 4096]).unwrap();
        // The client neither stops nor closes: only the cap can end the discarding.
        let deadline = Instant::now() + Duration::from_secs(2);
        while !discard_input(&mut conn) {
            assert!(
                Instant::now() < deadline,
                "discarded {} bytes",
                conn.discarded
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(conn.discarded > MAX_DISCARD);
    }
}
