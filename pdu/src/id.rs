//! PDU identifiers and the direction each one travels.

use core::fmt;

/// Which way a PDU travels. Decoding is direction-aware: a server must
/// refuse `turn`, a client must refuse `place`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// What a server receives.
    ClientToServer,
    /// What a client receives.
    ServerToClient,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::ClientToServer => "client to server",
            Direction::ServerToClient => "server to client",
        })
    }
}

/// The `id` field of every PDU header (the seed's Message IDs enum).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MsgId {
    /// -1, either way.
    Error,
    /// 0, client to server.
    Connect,
    /// 1, server to client.
    ConnectOk,
    /// 2, client to server (the seed's CLIENT_QUIT / disconnect_pdu).
    Quit,
    /// 3, server to client.
    Turn,
    /// 4, client to server.
    Place,
    /// 5, server to client.
    PlaceError,
    /// 6, server to client.
    UpdateBoard,
    /// 7, server to client.
    Winner,
}

impl MsgId {
    /// Every id, in wire order.
    pub const ALL: [MsgId; 9] = [
        MsgId::Error,
        MsgId::Connect,
        MsgId::ConnectOk,
        MsgId::Quit,
        MsgId::Turn,
        MsgId::Place,
        MsgId::PlaceError,
        MsgId::UpdateBoard,
        MsgId::Winner,
    ];

    /// The id's wire value.
    pub const fn to_wire(self) -> i16 {
        match self {
            MsgId::Error => -1,
            MsgId::Connect => 0,
            MsgId::ConnectOk => 1,
            MsgId::Quit => 2,
            MsgId::Turn => 3,
            MsgId::Place => 4,
            MsgId::PlaceError => 5,
            MsgId::UpdateBoard => 6,
            MsgId::Winner => 7,
        }
    }

    /// The id with this wire value, or `None` for an unknown id.
    pub const fn from_wire(value: i16) -> Option<MsgId> {
        Some(match value {
            -1 => MsgId::Error,
            0 => MsgId::Connect,
            1 => MsgId::ConnectOk,
            2 => MsgId::Quit,
            3 => MsgId::Turn,
            4 => MsgId::Place,
            5 => MsgId::PlaceError,
            6 => MsgId::UpdateBoard,
            7 => MsgId::Winner,
            _ => return None,
        })
    }

    /// The PDU's name in the specification, such as `update_board`.
    pub const fn name(self) -> &'static str {
        match self {
            MsgId::Error => "error",
            MsgId::Connect => "connect",
            MsgId::ConnectOk => "connect_ok",
            MsgId::Quit => "quit",
            MsgId::Turn => "turn",
            MsgId::Place => "place",
            MsgId::PlaceError => "place_error",
            MsgId::UpdateBoard => "update_board",
            MsgId::Winner => "winner",
        }
    }

    /// Whether a PDU with this id may travel in `direction`.
    pub const fn travels(self, direction: Direction) -> bool {
        match self {
            MsgId::Error => true,
            MsgId::Connect | MsgId::Quit | MsgId::Place => {
                matches!(direction, Direction::ClientToServer)
            }
            MsgId::ConnectOk
            | MsgId::Turn
            | MsgId::PlaceError
            | MsgId::UpdateBoard
            | MsgId::Winner => matches!(direction, Direction::ServerToClient),
        }
    }
}

impl fmt::Display for MsgId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_values_round_trip() {
        for id in MsgId::ALL {
            assert_eq!(MsgId::from_wire(id.to_wire()), Some(id));
        }
        assert_eq!(MsgId::from_wire(8), None);
        assert_eq!(MsgId::from_wire(-2), None);
    }

    #[test]
    fn only_error_travels_both_ways() {
        for id in MsgId::ALL {
            let both =
                id.travels(Direction::ClientToServer) && id.travels(Direction::ServerToClient);
            assert_eq!(both, id == MsgId::Error, "{id}");
        }
    }
}
