//! Who may organise tournaments: the command line's part.

/// Tournaments (spec/TOURNAMENTS.md): who may create them. They need the store (--data-dir
/// or --database-url): a game's result is read from the journal the store keeps until it
/// archives the game.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Organising {
    /// Accounts that may create tournaments (`GAME TOURNAMENT CREATE`), comma-separated;
    /// each organises those it creates.
    #[arg(long, value_name = "NAME,…", value_delimiter = ',')]
    pub organisers: Vec<String>,

    /// Let every signed-in account create tournaments.
    #[arg(long)]
    pub open_tournaments: bool,
}

impl Organising {
    /// Whether `account` may create a tournament.
    pub fn may_create(&self, account: &str) -> bool {
        self.open_tournaments
            || self
                .organisers
                .iter()
                .any(|o| o.eq_ignore_ascii_case(account))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn organisers_create_and_everyone_when_open() {
        let mut options = Organising {
            organisers: vec!["Alice".into()],
            open_tournaments: false,
        };
        assert!(options.may_create("alice"));
        assert!(!options.may_create("bob"));
        options.open_tournaments = true;
        assert!(options.may_create("bob"));
    }
}
