//! One HTTP request to the server, as a browser's or a balancer's would come.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};

/// A TCP connection to `addr` from the loopback address `from` (bound before connecting):
/// the server's limits count per address, and a test may need several.
pub fn tcp_from(addr: SocketAddr, from: IpAddr) -> std::io::Result<TcpStream> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    socket.bind(&SocketAddr::new(from, 0).into())?;
    socket.connect(&addr.into())?;
    Ok(TcpStream::from(socket))
}

/// The whole answer to `GET path` on `stream` (the server closes after it).
fn get_on(mut stream: TcpStream, path: &str) -> String {
    stream.set_read_timeout(Some(crate::PATIENCE)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

/// The answer to `GET path`, whole.
pub fn get(addr: SocketAddr, path: &str) -> String {
    get_on(TcpStream::connect(addr).unwrap(), path)
}

/// The answer to `GET path` asked from the loopback address `from`.
pub fn get_from(addr: SocketAddr, from: IpAddr, path: &str) -> String {
    get_on(tcp_from(addr, from).unwrap(), path)
}
