//! Just enough JSON output for retro's fixed shapes: strings escaped by hand, numbers and words as they are.
//! (The shapes are small and exact; a serialisation framework would add a dependency and nothing else.)

use std::fmt::Write;

use retro_game::Value;

/// `s` as a JSON string literal, quotes included.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `"outcome":"win","plies":3` (or `"plies":null` for a draw): the two fields every value is printed with.
pub fn value_fields(value: Value) -> String {
    match value.plies() {
        Some(p) => format!("\"outcome\":\"{}\",\"plies\":{p}", value.outcome()),
        None => format!("\"outcome\":\"{}\",\"plies\":null", value.outcome()),
    }
}

/// A number, or `null`.
pub fn optional<T: std::fmt::Display>(x: Option<T>) -> String {
    match x {
        Some(x) => x.to_string(),
        None => "null".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
        assert_eq!(string("plain"), "\"plain\"");
    }

    #[test]
    fn values_print_their_two_fields() {
        assert_eq!(
            value_fields(Value::win(3)),
            "\"outcome\":\"win\",\"plies\":3"
        );
        assert_eq!(
            value_fields(Value::DRAW),
            "\"outcome\":\"draw\",\"plies\":null"
        );
    }
}
