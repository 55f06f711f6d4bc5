//! The store's options and where its data directory is: `--data-dir`, else
//! `$XDG_DATA_HOME/reversid`, else `~/.local/share/reversid` (spec/STORE.md §10).

use std::path::{Path, PathBuf};

use reversi_store::Database;

/// Players, ratings and the archive (spec/STORE.md).
#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// Where the server keeps what outlives a game: its SQLite database (reversid.sqlite3) and
    /// the journals of running games (default: $XDG_DATA_HOME/reversid, else
    /// ~/.local/share/reversid; created on first start).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Store players, ratings and games in this PostgreSQL database instead of SQLite
    /// (a postgresql:// URL or libpq's "host=… dbname=…"; never logged).
    #[arg(long, value_name = "CONNINFO", conflicts_with = "no_store")]
    pub database: Option<String>,

    /// Run without a store: no accounts, ratings nor archive (records and journals as before).
    #[arg(long)]
    pub no_store: bool,
}

/// The store the server runs with: its database and the data directory it keeps journals in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub data_dir: PathBuf,
    pub database: Database,
}

impl Options {
    /// The store, unless `--no-store`; an error if no data directory can be named.
    pub fn setting(&self) -> Result<Option<Setting>, String> {
        if self.no_store {
            return Ok(None);
        }
        let data_dir = match &self.data_dir {
            Some(dir) => dir.clone(),
            None => default_data_dir(
                std::env::var_os("XDG_DATA_HOME").map(PathBuf::from),
                std::env::var_os("HOME").map(PathBuf::from),
            )
            .ok_or("no data directory: neither XDG_DATA_HOME nor HOME is set (give --data-dir DIR, or --no-store)")?,
        };
        let database = Database::choose(&data_dir, self.database.as_deref());
        Ok(Some(Setting { data_dir, database }))
    }

    /// Makes `--data-dir` absolute (the daemon moves to /).
    pub fn absolutize(&mut self) -> std::io::Result<()> {
        if let Some(dir) = &mut self.data_dir {
            *dir = std::path::absolute(&*dir)?;
        }
        Ok(())
    }
}

/// `$XDG_DATA_HOME/reversid` (an absolute one only, as the XDG spec says), else
/// `$HOME/.local/share/reversid`.
fn default_data_dir(xdg_data_home: Option<PathBuf>, home: Option<PathBuf>) -> Option<PathBuf> {
    let xdg = xdg_data_home.filter(|p| p.is_absolute());
    let base = xdg.or_else(|| home.map(|h| h.join(".local/share")))?;
    Some(base.join("reversid"))
}

impl Setting {
    /// Where the journals of running games are kept, so a killed server's are found again.
    pub fn journal_dir(&self) -> PathBuf {
        self.data_dir.join("journals")
    }

    /// The file that keeps a second server off this data directory.
    pub fn lock_path(&self) -> PathBuf {
        lock_path(&self.data_dir)
    }
}

fn lock_path(data_dir: &Path) -> PathBuf {
    data_dir.join("reversid.lock")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        store: Options,
    }

    #[test]
    fn the_data_directory_follows_xdg_then_home() {
        let home = Some(PathBuf::from("/home/ann"));
        assert_eq!(
            default_data_dir(Some("/data".into()), home.clone()),
            Some(PathBuf::from("/data/reversid"))
        );
        assert_eq!(
            default_data_dir(Some("relative".into()), home.clone()),
            Some(PathBuf::from("/home/ann/.local/share/reversid")),
            "a relative XDG_DATA_HOME is ignored"
        );
        assert_eq!(default_data_dir(None, None), None);
    }

    #[test]
    fn sqlite_in_the_data_directory_unless_a_database_or_none_is_named() {
        let cli = Cli::parse_from(["reversid", "--data-dir", "/d"]);
        let setting = cli.store.setting().unwrap().unwrap();
        assert_eq!(setting.database, Database::Sqlite("/d".into()));
        assert_eq!(setting.journal_dir(), Path::new("/d/journals"));
        let cli = Cli::parse_from(["reversid", "--data-dir", "/d", "--database", "host=db"]);
        let setting = cli.store.setting().unwrap().unwrap();
        assert_eq!(setting.database, Database::Postgres("host=db".into()));
        let cli = Cli::parse_from(["reversid", "--no-store"]);
        assert_eq!(cli.store.setting(), Ok(None));
        assert!(Cli::try_parse_from(["reversid", "--no-store", "--database", "x"]).is_err());
    }
}
