//! Player names, guests' and accounts' alike: normalised, checked, and keyed
//! so that names differing only in case (or in Unicode's compatibility forms,
//! `Ａｌｉｃｅ` and `Alice`) are the same name.

use std::fmt;

use unicode_normalization::UnicodeNormalization;

/// The fewest and most characters (not bytes) a name may have.
pub const NAME_CHARS: std::ops::RangeInclusive<usize> = 3..=20;

/// Words a name may not be, in any case: the text protocol's command words
/// (a name alone on a line must not read as a message) and names that would
/// pass for the server or for nobody.
const RESERVED: &[&str] = &[
    "game",
    "move",
    "draw",
    "ready",
    "error",
    "result",
    "win",
    "lose",
    "over",
    "aborted",
    "quit",
    "type",
    "list",
    "watch",
    "version",
    "offer",
    "accept",
    "decline",
    "news",
    "session",
    "sessions",
    "get",
    "reversid",
    "server",
    "admin",
    "guest",
    "nobody",
    "anonymous",
];

/// A valid player name: as the player spelt it (NFC), and its key.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Name {
    display: String,
    key: String,
}

/// Why a name was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NameError {
    Length {
        chars: usize,
    },
    /// The first character must be a letter.
    Start(char),
    Character(char),
    Reserved,
    /// Letters of two of the Latin, Greek and Cyrillic scripts: `Аlice` with a Cyrillic `А`
    /// would pass for `Alice`.
    MixedScripts,
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (min, max) = (NAME_CHARS.start(), NAME_CHARS.end());
        match self {
            NameError::Length { chars } => {
                write!(f, "a name has {min} to {max} characters, not {chars}")
            }
            NameError::Start(c) => write!(f, "a name starts with a letter, not {c:?}"),
            NameError::Character(c) => write!(
                f,
                "a name holds letters, digits, '-', '_' and '.' only, not {c:?}"
            ),
            NameError::Reserved => write!(f, "that name is reserved"),
            NameError::MixedScripts => write!(
                f,
                "a name's letters are Latin, Greek or Cyrillic, not a mix (look-alikes)"
            ),
        }
    }
}

impl std::error::Error for NameError {}

impl Name {
    /// Checks and normalises `raw`: NFC for display, NFKC and lower case for
    /// the key. Letters and digits of any script, `-`, `_` and `.`; no spaces,
    /// controls, invisible formatting or quotes, so a name cannot carry a line
    /// break or pose as a word of a protocol line.
    pub fn new(raw: &str) -> Result<Name, NameError> {
        let display: String = raw.nfc().collect();
        let chars = display.chars().count();
        if !NAME_CHARS.contains(&chars) {
            return Err(NameError::Length { chars });
        }
        let first = display.chars().next().unwrap_or(' ');
        if !first.is_alphabetic() {
            return Err(NameError::Start(first));
        }
        if let Some(bad) = display.chars().find(|&c| !allowed(c)) {
            return Err(NameError::Character(bad));
        }
        if mixes_scripts(&display) {
            return Err(NameError::MixedScripts);
        }
        let key = key(&display);
        if RESERVED.contains(&key.as_str()) {
            return Err(NameError::Reserved);
        }
        Ok(Name { display, key })
    }

    /// The name as the player spelt it.
    pub fn as_str(&self) -> &str {
        &self.display
    }

    /// What makes two names the same: equal keys, equal names.
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display)
    }
}

fn allowed(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// The scripts whose letters look alike (`a`/`а`/`α`, `o`/`о`/`ο`, `p`/`р`/`ρ`, …), by
/// their Unicode blocks; other letters (CJK, Arabic, …), digits and `-_.` belong to none.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Greek,
    Cyrillic,
}

fn script(c: char) -> Option<Script> {
    match u32::from(c) {
        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x250..=0x2AF | 0x1D00..=0x1DBF => {
            Some(Script::Latin)
        }
        0x1E00..=0x1EFF | 0x2C60..=0x2C7F | 0xA720..=0xA7FF | 0xAB30..=0xAB6F => {
            Some(Script::Latin)
        }
        0xFF21..=0xFF3A | 0xFF41..=0xFF5A => Some(Script::Latin),
        0x370..=0x3FF | 0x1F00..=0x1FFF => Some(Script::Greek),
        0x400..=0x52F | 0x1C80..=0x1C8F | 0x2DE0..=0x2DFF | 0xA640..=0xA69F => {
            Some(Script::Cyrillic)
        }
        _ => None,
    }
}

/// Whether `name` has letters of two of the look-alike scripts (the UTS #39 mixed-script
/// test, for these three: a whole-script look-alike, all Cyrillic, still passes).
fn mixes_scripts(name: &str) -> bool {
    let mut scripts = name.chars().filter_map(script);
    let Some(first) = scripts.next() else {
        return false;
    };
    scripts.any(|s| s != first)
}

/// NFKC folds compatibility forms, lower case folds case; NFC again because
/// lower-casing may undo a composition.
fn key(display: &str) -> String {
    let folded: String = display.nfkc().collect::<String>().to_lowercase();
    folded.nfc().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_pass_and_keep_their_spelling() {
        let name = Name::new("Alice_1.b-c").unwrap();
        assert_eq!(name.as_str(), "Alice_1.b-c");
        assert_eq!(name.key(), "alice_1.b-c");
        assert_eq!(Name::new("Ørjan").unwrap().key(), "ørjan");
        assert_eq!(Name::new("名人戦者").unwrap().as_str(), "名人戦者");
    }

    #[test]
    fn names_differing_in_case_or_compatibility_form_share_a_key() {
        let a = Name::new("Alice").unwrap();
        assert_eq!(a.key(), Name::new("aLICE").unwrap().key());
        assert_eq!(a.key(), Name::new("Ａｌｉｃｅ").unwrap().key());
        // é composed and decomposed are one name, shown composed.
        let composed = Name::new("Andr\u{e9}").unwrap();
        let decomposed = Name::new("Andre\u{301}").unwrap();
        assert_eq!(composed, decomposed);
        assert_eq!(decomposed.as_str(), "Andr\u{e9}");
    }

    #[test]
    fn lengths_count_characters() {
        assert_eq!(Name::new("ab"), Err(NameError::Length { chars: 2 }));
        assert!(Name::new("abc").is_ok());
        assert!(Name::new(&"é".repeat(20)).is_ok());
        assert_eq!(
            Name::new(&"a".repeat(21)),
            Err(NameError::Length { chars: 21 })
        );
    }

    #[test]
    fn spaces_controls_and_invisible_characters_are_refused() {
        for (raw, bad) in [
            ("ali ce", ' '),
            ("alice\n", '\n'),
            ("ali\u{7f}ce", '\u{7f}'),
            ("ali\u{200b}ce", '\u{200b}'),
            ("ali\u{202e}ce", '\u{202e}'),
            ("al\"ice", '"'),
            ("ali\tce", '\t'),
        ] {
            assert_eq!(Name::new(raw), Err(NameError::Character(bad)), "{raw:?}");
        }
    }

    #[test]
    fn latin_greek_and_cyrillic_letters_do_not_mix() {
        // `А` (U+0410, Cyrillic), `ο` (U+03BF, Greek), `е` (U+0435, Cyrillic).
        // A name and its transliteration side by side mix too.
        for raw in [
            "\u{410}lice",
            "B\u{3bf}b",
            "Alic\u{435}",
            "\u{3b1}\u{430}x",
            "Иван.Ivanov2",
        ] {
            assert_eq!(Name::new(raw), Err(NameError::MixedScripts), "{raw:?}");
        }
        // One script each, with digits and marks, and scripts that do not look alike.
        for raw in [
            "Алиса",
            "Σωκράτης",
            "Ørjan_2",
            "Zoë",
            "山田Taro",
            "Ａｌｉｃｅ",
        ] {
            let got = Name::new(raw);
            assert!(got.is_ok(), "{raw:?}: {got:?}");
        }
    }

    #[test]
    fn names_that_read_as_protocol_words_or_numbers_are_refused() {
        assert_eq!(Name::new("GAME"), Err(NameError::Reserved));
        assert_eq!(Name::new("Ready"), Err(NameError::Reserved));
        assert_eq!(Name::new("1234"), Err(NameError::Start('1')));
        assert_eq!(Name::new("-abc"), Err(NameError::Start('-')));
    }
}
