//! The text protocol carried in WebSocket messages (spec/TEXT-PROTOCOL.md §15):
//! the text adapter, with frames taken off what arrives and put around what
//! leaves. One message is one line, both ways.

use tungstenite::protocol::frame::coding::CloseCode;

use super::frames::{self, Incoming};
use super::Message;
use crate::outbox::Outbox;
use crate::protocols::text::Adapter as Text;
use crate::protocols::{Event, Input, Wire};

pub struct WebSocket {
    text: Text,
    /// Bytes of a frame not yet whole (at most one header and one message).
    partial: Vec<u8>,
    /// Control frames owed to the client: pongs, the echo of its close.
    owed: Vec<u8>,
    /// Our close frame is queued: nothing may follow it (RFC 6455 §5.5.1).
    closed: bool,
    /// The client closed or broke the protocol: nothing more is read.
    deaf: bool,
    /// The code of our close frame: normal, or why the client's frames were refused.
    close_code: CloseCode,
}

impl WebSocket {
    pub fn new() -> WebSocket {
        WebSocket {
            text: Text::new(),
            partial: Vec::new(),
            owed: Vec::new(),
            closed: false,
            deaf: false,
            close_code: CloseCode::Normal,
        }
    }

    fn take(&mut self, frame: Incoming, inputs: &mut Vec<Input>) {
        match Message::of(frame) {
            Message::Line(line) => self.text.receive(&line, inputs),
            Message::NotUnderstood(why) => inputs.push(Input::Confused(why.to_owned())),
            Message::Ping(payload) => self.owed.extend(frames::pong(&payload)),
            // The pong of our ping n (its payload): the lag allowance's sample.
            Message::Pong(payload) => inputs.extend(pong_number(&payload).map(Input::Pong)),
            Message::Close(payload) => {
                self.deaf = true;
                if !self.closed {
                    self.closed = true;
                    self.owed.extend(frames::close_echo(&payload));
                }
                inputs.push(Input::Hangup);
            }
        }
    }
}

/// The number a pong's payload echoes, if it is one of our pings'.
fn pong_number(payload: &[u8]) -> Option<u32> {
    std::str::from_utf8(payload).ok()?.parse().ok()
}

impl Wire for WebSocket {
    fn receive(&mut self, bytes: &[u8], inputs: &mut Vec<Input>) {
        if self.deaf {
            return;
        }
        self.partial.extend_from_slice(bytes);
        while !self.deaf {
            match frames::next(&self.partial) {
                Ok(None) => return,
                Ok(Some((frame, used))) => {
                    self.partial.drain(..used);
                    self.take(frame, inputs);
                }
                Err(violation) => {
                    // The ERROR line (from the violation) goes out, then a close with its code.
                    self.deaf = true;
                    self.partial = Vec::new();
                    inputs.push(Input::Violation(violation.why));
                    self.close_code = violation.code;
                }
            }
        }
        self.partial = Vec::new();
    }

    fn send(&mut self, event: &Event, out: &mut Outbox) {
        if self.closed {
            return;
        }
        if let Event::Replaced = event {
            // Taken over by a new connection (TEXT-PROTOCOL.md §5.5): a policy close.
            self.close_code = CloseCode::Policy;
        }
        // The page need not answer: the browser pongs a ping frame by itself.
        if let Event::Ping(n) = event {
            out.push(&frames::ping(n.to_string().as_bytes()));
            return;
        }
        let mut lines = Outbox::new();
        self.text.send(event, &mut lines);
        let mut bytes = Vec::with_capacity(lines.pending());
        // Into a Vec: cannot fail.
        let _ = lines.flush(&mut bytes);
        out.push(&frames::text_frames(&bytes));
    }

    /// The browser pongs by itself.
    fn answers_pings(&self) -> bool {
        true
    }

    fn owed(&mut self, out: &mut Outbox) {
        out.push(&std::mem::take(&mut self.owed));
    }

    fn farewell(&mut self, out: &mut Outbox) {
        if !self.closed {
            self.closed = true;
            out.push(&frames::close(self.close_code));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_games::{registry, Viewer};

    /// A client frame: FIN, `opcode`, masked.
    fn client(opcode: u8, payload: &[u8]) -> Vec<u8> {
        let mask = [7, 1, 9, 3];
        let mut out = vec![0x80 | opcode, 0x80 | payload.len() as u8];
        out.extend(mask);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        out
    }

    fn written(out: &mut Outbox) -> Vec<u8> {
        let mut bytes = Vec::new();
        out.flush(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn messages_are_lines_whatever_way_the_bytes_arrive() {
        let mut ws = WebSocket::new();
        let mut inputs = Vec::new();
        let bytes = [client(1, b"MOVE d3"), client(1, b"GAME QUIT\r\n")].concat();
        for byte in &bytes {
            ws.receive(std::slice::from_ref(byte), &mut inputs);
        }
        assert_eq!(
            inputs,
            [Input::Notation("d3".to_owned()), Input::Quit],
            "one input a message"
        );
        inputs.clear();
        ws.receive(&client(1, b"MOVE d3\nMOVE c4"), &mut inputs);
        ws.receive(&client(2, b"\x00"), &mut inputs);
        assert!(
            matches!(&inputs[..], [Input::Confused(a), Input::Confused(b)]
            if a.contains("one line") && b.contains("binary"))
        );
    }

    #[test]
    fn pings_are_answered_and_a_close_is_echoed_and_ends_the_talk() {
        let mut ws = WebSocket::new();
        let mut inputs = Vec::new();
        let mut out = Outbox::new();
        ws.receive(&client(9, b"hi"), &mut inputs);
        ws.owed(&mut out);
        assert_eq!(written(&mut out), frames::pong(b"hi"));
        ws.receive(
            &[client(8, &[0x03, 0xe8]), client(1, b"GAME QUIT")].concat(),
            &mut inputs,
        );
        assert_eq!(inputs, [Input::Hangup], "nothing is read after a close");
        ws.owed(&mut out);
        ws.send(&Event::Ready, &mut out);
        ws.farewell(&mut out);
        assert_eq!(
            written(&mut out),
            frames::close(CloseCode::Normal),
            "after the close echo nothing more"
        );
    }

    #[test]
    fn our_pings_are_ping_frames_and_their_pongs_are_lag_samples() {
        let mut ws = WebSocket::new();
        let mut out = Outbox::new();
        ws.send(&Event::Ping(7), &mut out);
        assert_eq!(written(&mut out), frames::ping(b"7"));
        let mut inputs = Vec::new();
        ws.receive(&client(10, b"7"), &mut inputs);
        ws.receive(&client(10, b"not ours"), &mut inputs);
        assert_eq!(inputs, [Input::Pong(7)]);
    }

    #[test]
    fn events_go_out_as_one_message_a_line_then_the_close() {
        let mut ws = WebSocket::new();
        let mut out = Outbox::new();
        let info = registry::find("tictactoe").unwrap().info;
        ws.send(
            &Event::Start {
                info,
                viewer: Viewer::Spectator,
                cells: Vec::new(),
                id: 4,
                time: None,
                players: Vec::new(),
            },
            &mut out,
        );
        ws.farewell(&mut out);
        ws.farewell(&mut out);
        let expected = [
            frames::text_frames(b"GAME TYPE TicTacToe\nGAME BOARD TicTacToeBoard 3 3\n"),
            frames::text_frames(b"GAME COLUMNS a b c\nGAME ROWS 1 2 3\nGAME TEAMS X O\n"),
            frames::text_frames(b"GAME WATCHING 4\n"),
            frames::close(CloseCode::Normal),
        ]
        .concat();
        assert_eq!(written(&mut out), expected);
    }

    #[test]
    fn a_broken_frame_is_a_violation_closed_with_its_code() {
        let mut ws = WebSocket::new();
        let mut inputs = Vec::new();
        let mut out = Outbox::new();
        ws.receive(&[0x81, 0x01, b'x'], &mut inputs);
        ws.receive(&client(1, b"GAME QUIT"), &mut inputs);
        assert!(matches!(&inputs[..], [Input::Violation(why)] if why.contains("unmasked")));
        ws.farewell(&mut out);
        assert_eq!(written(&mut out), frames::close(CloseCode::Protocol));
    }
}
