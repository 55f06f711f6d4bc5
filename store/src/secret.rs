//! Passwords and API tokens: the only types that hold them, which print as
//! `<hidden>` so that no log, journal or record can show one. Passwords are
//! stored as Argon2id hashes; a token as its id and the SHA-256 of its secret,
//! compared in constant time.

use std::fmt;

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The fewest and most bytes a password may have (the most bounds Argon2's work).
pub const PASSWORD_BYTES: std::ops::RangeInclusive<usize> = 8..=256;
/// What every token starts with, so that one found in a file or a log is recognisable.
const TOKEN_PREFIX: &str = "rvt_";
/// Random bytes in a token's id and in its secret.
const TOKEN_ID_BYTES: usize = 8;
const TOKEN_SECRET_BYTES: usize = 32;

/// A password as the player typed it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

/// Why a password was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PasswordError {
    Length { bytes: usize },
}

impl fmt::Display for PasswordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let PasswordError::Length { bytes } = self;
        let (min, max) = (PASSWORD_BYTES.start(), PASSWORD_BYTES.end());
        write!(f, "a password has {min} to {max} bytes, not {bytes}")
    }
}

impl std::error::Error for PasswordError {}

impl Password {
    pub fn new(raw: impl Into<String>) -> Result<Password, PasswordError> {
        let raw = raw.into();
        if PASSWORD_BYTES.contains(&raw.len()) {
            Ok(Password(raw))
        } else {
            Err(PasswordError::Length { bytes: raw.len() })
        }
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(<hidden>)")
    }
}

/// The Argon2id hash of `password`, with a fresh salt, as a PHC string
/// (`$argon2id$v=19$m=19456,t=2,p=1$...`): it carries its own parameters.
pub(crate) fn hash_password(password: &Password) -> Result<String, String> {
    Argon2::default()
        .hash_password(password.0.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|e| format!("hashing a password: {e}"))
}

/// Whether `password` is the one hashed in `phc`. A malformed hash matches nothing.
pub(crate) fn verify_password(password: &Password, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(password.0.as_bytes(), &hash)
            .is_ok()
    })
}

/// A hash no password matches, to verify against when the account does not
/// exist: signing in then takes as long as with a wrong password.
pub(crate) fn verify_against_nothing(password: &Password) {
    static NOTHING: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let nothing = NOTHING.get_or_init(|| {
        let unguessable = random_hex(32).unwrap_or_else(|_| "x".repeat(64));
        hash_password(&Password(unguessable)).unwrap_or_default()
    });
    verify_password(password, nothing);
}

/// The public part of a token: it names the token in lists and revocations.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TokenId(String);

impl TokenId {
    /// A token id as a list showed it (hexadecimal digits).
    pub fn parse(text: &str) -> Option<TokenId> {
        let ok = text.len() == 2 * TOKEN_ID_BYTES && text.bytes().all(|b| b.is_ascii_hexdigit());
        ok.then(|| TokenId(text.to_ascii_lowercase()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TokenId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A whole API token, `rvt_<id>_<secret>`: shown once, when created, and
/// then only presented by the program that holds it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiToken {
    id: TokenId,
    secret: String,
}

impl ApiToken {
    /// A new token from the operating system's randomness.
    pub(crate) fn generate() -> Result<ApiToken, String> {
        Ok(ApiToken {
            id: TokenId(random_hex(TOKEN_ID_BYTES)?),
            secret: random_hex(TOKEN_SECRET_BYTES)?,
        })
    }

    /// A token as a program presents it; `None` if it is not shaped like one.
    pub fn parse(text: &str) -> Option<ApiToken> {
        let (id, secret) = text.strip_prefix(TOKEN_PREFIX)?.split_once('_')?;
        let secret_ok =
            secret.len() == 2 * TOKEN_SECRET_BYTES && secret.bytes().all(|b| b.is_ascii_hexdigit());
        Some(ApiToken {
            id: TokenId::parse(id)?,
            secret: secret_ok.then(|| secret.to_ascii_lowercase())?,
        })
    }

    pub fn id(&self) -> &TokenId {
        &self.id
    }

    /// The whole token, to hand to its owner once.
    pub fn reveal(&self) -> String {
        format!("{TOKEN_PREFIX}{}_{}", self.id, self.secret)
    }

    /// What the store keeps of the secret.
    pub(crate) fn secret_hash(&self) -> Vec<u8> {
        Sha256::digest(self.secret.as_bytes()).to_vec()
    }

    /// Whether this token's secret is the one hashed in `stored`, in constant time.
    pub(crate) fn matches(&self, stored: &[u8]) -> bool {
        self.secret_hash().ct_eq(stored).into()
    }
}

impl fmt::Debug for ApiToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiToken({}, <hidden>)", self.id)
    }
}

fn random_hex(bytes: usize) -> Result<String, String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| format!("no randomness from the system: {e}"))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_hash_with_argon2id_and_verify() {
        let password = Password::new("correct horse").unwrap();
        let hash = hash_password(&password).unwrap();
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(verify_password(&password, &hash));
        assert!(!verify_password(
            &Password::new("wrong horse").unwrap(),
            &hash
        ));
        assert!(!verify_password(&password, "not a hash"));
        // Salted: the same password hashes differently each time.
        assert_ne!(hash, hash_password(&password).unwrap());
    }

    #[test]
    fn password_lengths_are_bounded() {
        assert_eq!(
            Password::new("short"),
            Err(PasswordError::Length { bytes: 5 })
        );
        assert!(Password::new("x".repeat(257)).is_err());
    }

    #[test]
    fn secrets_never_print() {
        let password = Password::new("hunter2hunter2").unwrap();
        assert!(!format!("{password:?}").contains("hunter2"));
        let token = ApiToken::generate().unwrap();
        let shown = format!("{token:?}");
        assert!(!shown.contains(&token.secret), "{shown}");
        assert!(shown.contains(token.id().as_str()));
    }

    #[test]
    fn tokens_parse_back_and_match_only_their_own_hash() {
        let token = ApiToken::generate().unwrap();
        let text = token.reveal();
        assert!(text.starts_with("rvt_"));
        let parsed = ApiToken::parse(&text).unwrap();
        assert_eq!(parsed, token);
        assert!(parsed.matches(&token.secret_hash()));
        let other = ApiToken::generate().unwrap();
        assert!(!other.matches(&token.secret_hash()));
        assert!(!token.matches(&[]));
    }

    #[test]
    fn malformed_tokens_are_refused() {
        let text = ApiToken::generate().unwrap().reveal();
        assert!(ApiToken::parse(&text[1..]).is_none());
        assert!(ApiToken::parse(&text[..text.len() - 1]).is_none());
        assert!(ApiToken::parse(&text.replace('_', "-")).is_none());
        assert!(ApiToken::parse("rvt_0123456789abcdef_zz").is_none());
    }
}
