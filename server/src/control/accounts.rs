//! The control socket's requests that need the store's accounts: run on a thread of their
//! own (an Argon2 hash and a database write would stall the loop), each with a connection
//! of its own, the answer sent back to the loop (`crate::supervisor::control`).

use std::io::Read;

use reversi_store::{Name, Password, Store, StoreError, UnixMillis};

/// What the thread does.
#[derive(Clone, Debug)]
pub enum Job {
    /// `ACCOUNT CREATE name`: a new account (its password random, never shown) and an API
    /// token for it, for a bot that signs in with the token.
    CreateAccount(Name),
    /// `TOURNAMENT REGISTER id account`: the account looked up, so that it is registered
    /// as it spells its name, and only if it exists.
    Enter { id: u64, account: Name },
}

/// What it found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Done {
    /// The answer's lines, or why not.
    Lines(Result<Vec<String>, String>),
    /// Register `account` (spelt as the store spells it) in tournament `id`, or why not.
    Enter {
        id: u64,
        account: Result<String, String>,
    },
}

/// The label of the tokens the operator makes.
pub const TOKEN_LABEL: &str = "made by the operator";

/// Does `job` against `store`.
pub fn run(store: &mut dyn Store, job: Job) -> Done {
    match job {
        Job::CreateAccount(name) => Done::Lines(create(store, &name)),
        Job::Enter { id, account } => Done::Enter {
            id,
            account: store
                .account(&account)
                .map_err(|e| e.to_string())
                .and_then(|found| found.map(|a| a.name).ok_or(format!("no account {account}"))),
        },
    }
}

/// `ACCOUNT name` and `TOKEN secret`.
fn create(store: &mut dyn Store, name: &Name) -> Result<Vec<String>, String> {
    let password = Password::new(random_password().map_err(|e| format!("no randomness: {e}"))?)
        .expect("48 hex digits are a valid password");
    let now = UnixMillis::now();
    let account = store.register(name, &password, now).map_err(|e| match e {
        StoreError::NameTaken => format!("{name}: that name is taken"),
        e => e.to_string(),
    })?;
    let token = store
        .create_token(account.id, TOKEN_LABEL, now)
        .map_err(|e| format!("account {} made, but no token: {e}", account.name))?;
    Ok(vec![
        format!("ACCOUNT {}", account.name),
        format!("TOKEN {}", token.token.reveal()),
    ])
}

/// 24 random bytes in hex: a password nobody is told (the account signs in by its token).
fn random_password() -> std::io::Result<String> {
    let mut bytes = [0u8; 24];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_store::{ApiToken, SqliteStore};

    /// A store in a directory of the test's own (`what` names it).
    fn store(what: &str) -> SqliteStore {
        let dir = std::env::temp_dir().join(format!(
            "reversid-control-accounts-{what}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        SqliteStore::open(&dir).expect("a store")
    }

    #[test]
    fn a_created_account_signs_in_by_its_token_and_its_name_is_then_taken() {
        let mut store = store("create");
        let name = Name::new("ClassBot1").unwrap();
        let Done::Lines(Ok(lines)) = run(&mut store, Job::CreateAccount(name.clone())) else {
            panic!("not created")
        };
        assert_eq!(lines[0], "ACCOUNT ClassBot1");
        let token = ApiToken::parse(lines[1].strip_prefix("TOKEN ").unwrap()).unwrap();
        let account = store
            .token_account(&token)
            .unwrap()
            .expect("the token's account");
        assert_eq!(account.account.name, "ClassBot1");
        let again = run(
            &mut store,
            Job::CreateAccount(Name::new("classbot1").unwrap()),
        );
        assert_eq!(
            again,
            Done::Lines(Err("classbot1: that name is taken".into()))
        );
    }

    #[test]
    fn an_account_entered_is_spelt_as_it_spells_itself_and_must_exist() {
        let mut store = store("enter");
        let name = Name::new("Ann").unwrap();
        let _ = run(&mut store, Job::CreateAccount(name));
        let entered = |store: &mut SqliteStore, raw: &str| {
            let job = Job::Enter {
                id: 4,
                account: Name::new(raw).unwrap(),
            };
            run(store, job)
        };
        assert_eq!(
            entered(&mut store, "ann"),
            Done::Enter {
                id: 4,
                account: Ok("Ann".into())
            }
        );
        assert_eq!(
            entered(&mut store, "Bob"),
            Done::Enter {
                id: 4,
                account: Err("no account Bob".into())
            }
        );
    }
}
