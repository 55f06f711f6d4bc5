//! Exit codes of the `reversi` binary, and the `Exit` values the client
//! machine asks its driver for.

/// The game ended normally (any result), or the user quit.
pub const OK: u8 = 0;
/// The server sent `error` (binary), ended the game without a result, or
/// closed the connection before the game ended.
pub const SERVER_GONE: u8 = 1;
/// The connection to the server could not be opened.
pub const CONNECT_FAILED: u8 = 2;
/// The server broke the protocol (a malformed or out-of-place message).
pub const PROTOCOL: u8 = 3;
