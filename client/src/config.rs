//! Who the client says it is: `--name`, `--token`, or the token of the config
//! file, `$XDG_CONFIG_HOME/reversi/config.toml` (`~/.config/reversi/config.toml`
//! without XDG_CONFIG_HOME). The file is a few `key = value` lines, TOML's
//! simplest form: `token = "rvt_…"` (an API token, `reversi token new LABEL`
//! makes one), or `name = "bob"` (a guest's name); `#` starts a comment.

use std::path::PathBuf;

use reversi_client::text::Identity;

/// Where the config file is, if a home or XDG_CONFIG_HOME says.
pub fn path() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".config"),
    };
    Some(base.join("reversi").join("config.toml"))
}

/// The identity the command line gives, else the config file's (a missing file
/// is no identity: anonymous). `Err` says what is wrong with the file.
pub fn identity(name: Option<&str>, token: Option<&str>) -> Result<Option<Identity>, String> {
    if let Some(token) = token {
        return Ok(Some(Identity::Token(token.to_owned())));
    }
    if let Some(name) = name {
        return Ok(Some(Identity::Guest(name.to_owned())));
    }
    let Some(path) = path() else {
        return Ok(None);
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => read(&text).map_err(|why| format!("{}: {why}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// The identity a config file's text gives: its token, else its name.
pub fn read(text: &str) -> Result<Option<Identity>, String> {
    let (mut name, mut token) = (None, None);
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(format!("line {}: not key = value", n + 1));
        };
        let value = value.trim().trim_matches('"').to_owned();
        match key.trim() {
            "token" => token = Some(value),
            "name" => name = Some(value),
            other => return Err(format!("line {}: no key {other:?} (token, name)", n + 1)),
        }
    }
    Ok(token.map(Identity::Token).or(name.map(Identity::Guest)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_wins_over_a_name_and_comments_are_skipped() {
        let text = "# mine\nname = \"bob\"\ntoken = \"rvt_abc\"  # the bot's\n";
        assert_eq!(read(text), Ok(Some(Identity::Token("rvt_abc".into()))));
        assert_eq!(
            read("name = bob\n"),
            Ok(Some(Identity::Guest("bob".into())))
        );
        assert_eq!(read("\n# nothing\n"), Ok(None));
        assert!(read("password = x").unwrap_err().contains("no key"));
        assert!(read("token").unwrap_err().contains("line 1"));
    }

    #[test]
    fn the_command_line_wins_over_the_file() {
        assert_eq!(
            identity(Some("bob"), None),
            Ok(Some(Identity::Guest("bob".into())))
        );
        assert_eq!(
            identity(Some("bob"), Some("rvt_x")),
            Ok(Some(Identity::Token("rvt_x".into())))
        );
    }
}
