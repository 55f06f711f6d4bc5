//! Large digits for a join code on a terminal: five rows of block characters, so
//! that a code can be read out across a room.

/// Rows of each digit, 3 columns wide; '-' is a short bar.
const GLYPHS: [[&str; 5]; 11] = [
    ["███", "█ █", "█ █", "█ █", "███"],
    ["  █", "  █", "  █", "  █", "  █"],
    ["███", "  █", "███", "█  ", "███"],
    ["███", "  █", "███", "  █", "███"],
    ["█ █", "█ █", "███", "  █", "  █"],
    ["███", "█  ", "███", "  █", "███"],
    ["███", "█  ", "███", "█ █", "███"],
    ["███", "  █", "  █", "  █", "  █"],
    ["███", "█ █", "███", "█ █", "███"],
    ["███", "█ █", "███", "  █", "███"],
    ["   ", "   ", "▄▄▄", "   ", "   "],
];

/// `text`'s digits and dashes in five rows; other characters are left out.
pub fn digits(text: &str) -> Vec<String> {
    let glyphs: Vec<&[&str; 5]> = text
        .chars()
        .filter_map(|c| match c {
            '0'..='9' => Some(&GLYPHS[c as usize - '0' as usize]),
            '-' => Some(&GLYPHS[10]),
            _ => None,
        })
        .collect();
    (0..5)
        .map(|row| {
            let parts: Vec<&str> = glyphs.iter().map(|g| g[row]).collect();
            parts.join(" ")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_five_rows_of_its_digits() {
        let rows = digits("10-7");
        assert_eq!(rows.len(), 5);
        assert_eq!(rows[0], "  █ ███     ███");
        assert_eq!(rows[2], "  █ █ █ ▄▄▄   █");
        assert!(rows.iter().all(|r| r.chars().count() == 15));
    }
}
