//! What a protocol machine ([`crate::text::Client`]) asks its driver to do.

/// What a protocol machine asks its driver to do, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step<Message, Notice> {
    /// Open the connection, then feed the machine's "opened" event back.
    Open,
    /// Send a message.
    Send(Message),
    /// Close the connection.
    Close,
    /// Tell the user something.
    Show(Notice),
    /// This connection is finished: a one-game client ends with this code.
    Exit(u8),
}
