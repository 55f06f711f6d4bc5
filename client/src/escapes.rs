//! Terminal escape sequences in a typed line. A terminal in line mode
//! passes keys it has no use for into the line as they are: F3 arrives as
//! `ESC O R`, an arrow as `ESC [ A`. Such a key is not something the person
//! meant to type, so the line is read without it.

const ESC: char = '\u{1b}';

/// `line` without escape sequences (CSI `ESC [ … final`, SS3 `ESC O x`,
/// and any other `ESC x`) and other control characters (a tab stays).
pub fn strip(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // A second ESC starts a sequence of its own (Alt+arrow: `ESC ESC [ A`).
            ESC => match chars.next_if(|&c| c != ESC) {
                // Control Sequence: parameter and intermediate bytes, then one final byte.
                Some('[') => {
                    while chars
                        .next_if(|c| ('\u{20}'..='\u{3f}').contains(c))
                        .is_some()
                    {}
                    chars.next_if(|c| ('\u{40}'..='\u{7e}').contains(c));
                }
                // Single Shift 3: one more character (F1-F4 on many terminals).
                Some('O') => {
                    chars.next();
                }
                _ => {}
            },
            '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_and_arrow_keys_are_taken_out() {
        assert_eq!(strip("\u{1b}OR"), "");
        assert_eq!(strip("\u{1b}ORd3"), "d3");
        assert_eq!(strip("d\u{1b}[A3"), "d3");
        assert_eq!(strip("\u{1b}[15~help"), "help");
        assert_eq!(strip("\u{1b}[1;5Cquit"), "quit");
        assert_eq!(strip("4 6\u{1b}"), "4 6");
        assert_eq!(strip("11-15\r"), "11-15");
        assert_eq!(strip("\u{1b}\u{1b}[Ad3"), "d3");
        assert_eq!(strip("\u{1b}\u{1b}\u{1b}OPquit"), "quit");
    }

    #[test]
    fn ordinary_text_is_kept() {
        assert_eq!(strip("offer draw"), "offer draw");
        assert_eq!(strip("c\t4"), "c\t4");
        assert_eq!(strip("é3"), "é3");
    }
}
