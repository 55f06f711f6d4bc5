//! An address block in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`, or one
//! address alone), for `--proxy-from`: the proxies whose PROXY headers are
//! believed.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// A network: its first address and prefix length (the bits after it are zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// Whether `ip` is in the block. An IPv4-mapped IPv6 address (what a dual-stack
    /// listener reports for an IPv4 peer) is its IPv4 address.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.network, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                masked(u128::from(ip.to_bits()), self.prefix, 32) == u128::from(net.to_bits())
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                masked(ip.to_bits(), self.prefix, 128) == net.to_bits()
            }
            _ => false,
        }
    }
}

/// `bits` (an address `width` bits wide) with all but its first `prefix` bits cleared.
fn masked(bits: u128, prefix: u8, width: u32) -> u128 {
    let host_bits = width - u32::from(prefix);
    bits.checked_shr(host_bits)
        .and_then(|b| b.checked_shl(host_bits))
        .unwrap_or(0)
}

impl FromStr for Cidr {
    type Err = String;

    /// `ADDRESS/PREFIX` or `ADDRESS` (the whole address); host bits must be zero, so
    /// that a typo such as `10.0.0.1/8` is not silently widened.
    fn from_str(text: &str) -> Result<Cidr, String> {
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text, None),
        };
        let network: IpAddr = address
            .parse()
            .map_err(|_| format!("{address:?} is not an IPv4 or IPv6 address"))?;
        let width: u8 = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => width,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|&p| p <= width)
                .ok_or_else(|| format!("{p:?} is not a prefix length from 0 to {width}"))?,
        };
        let cidr = Cidr { network, prefix };
        // A mapped IPv4 network contains nothing: `contains` compares IPv4 peers as IPv4.
        if !cidr.contains(network) {
            return Err(format!(
                "{text:?} has bits set after its /{prefix} (or is an IPv4-mapped address: write it as IPv4)"
            ));
        }
        Ok(cidr)
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn blocks_hold_their_addresses_and_no_other() {
        let lan: Cidr = "10.1.0.0/16".parse().unwrap();
        assert!(lan.contains(ip("10.1.255.7")));
        assert!(!lan.contains(ip("10.2.0.1")));
        assert!(!lan.contains(ip("2001:db8::1")));
        let one: Cidr = "127.0.0.1".parse().unwrap();
        assert_eq!(one.to_string(), "127.0.0.1/32");
        assert!(one.contains(ip("127.0.0.1")));
        assert!(one.contains(ip("::ffff:127.0.0.1")), "a dual-stack peer");
        assert!(!one.contains(ip("127.0.0.2")));
        let everyone: Cidr = "0.0.0.0/0".parse().unwrap();
        assert!(everyone.contains(ip("203.0.113.9")));
        let v6: Cidr = "2001:db8:ab00::/40".parse().unwrap();
        assert!(v6.contains(ip("2001:db8:abff::1")));
        assert!(!v6.contains(ip("2001:db8:ac00::1")));
        assert!("::/0".parse::<Cidr>().unwrap().contains(ip("::1")));
        assert!("::1/128".parse::<Cidr>().unwrap().contains(ip("::1")));
    }

    #[test]
    fn malformed_blocks_say_what_is_wrong() {
        for (text, says) in [
            ("10.0.0.1/8", "bits set after its /8"),
            ("10.0.0.0/33", "prefix length from 0 to 32"),
            ("2001:db8::/129", "prefix length from 0 to 128"),
            ("10.0.0.0/", "prefix length"),
            ("host.example/24", "not an IPv4 or IPv6 address"),
            ("::ffff:10.0.0.1", "IPv4-mapped"),
        ] {
            let error = text.parse::<Cidr>().unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }
}
