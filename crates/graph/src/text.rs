//! The text format combinatorial-game users write by hand:
//!
//! ```text
//! # comment
//! a   : b end | b      # partizan line: Left's options | Right's options
//! b   : a | a
//! end : |
//! ```
//!
//! One line per position, `name : options`. A file with at least one `|` is partizan; in a partizan file a line
//! without `|` gives the same options to both players. Every position named as an option has its own line.
//! Positions are numbered in file order. A name is any run of characters other than white space, `:`, `|` and `#`.

use std::collections::HashMap;

use crate::csr::Csr;
use crate::error::{ParseError, printable};
use crate::graph::{Graph, Moves, Names};

/// One position's line, split but not yet resolved.
struct Line<'a> {
    number: u64,
    name: &'a str,
    /// Left's (or everybody's) options, then Right's if the line has a `|`.
    left: &'a str,
    right: Option<&'a str>,
}

/// Whether a string may be a position's name.
pub(crate) fn is_name(name: &str) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, ':' | '|' | '#'))
}

/// Parses a text graph.
pub fn parse_text(bytes: &[u8]) -> Result<Graph, ParseError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ParseError::Syntax {
        line: 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64,
        reason: "the line is not valid UTF-8",
    })?;

    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if let Some(line) = split_line(i as u64 + 1, raw)? {
            lines.push(line);
        }
    }
    if lines.is_empty() {
        return Err(ParseError::Empty);
    }
    if lines.len() as u64 > 1 << 32 {
        return Err(ParseError::TooManyPositions {
            line: lines[1 << 32].number,
        });
    }

    let mut by_name: HashMap<&str, u32> = HashMap::with_capacity(lines.len());
    for (p, line) in lines.iter().enumerate() {
        if let Some(&first) = by_name.get(line.name) {
            return Err(ParseError::DuplicateName {
                line: line.number,
                name: printable(line.name),
                first: lines[first as usize].number,
            });
        }
        by_name.insert(line.name, p as u32);
    }

    let partizan = lines.iter().any(|line| line.right.is_some());
    let resolve = |line: &Line<'_>, options: &str, out: &mut Vec<(u32, u32)>, from: u32| {
        for option in options.split_whitespace() {
            match by_name.get(option) {
                Some(&q) => out.push((from, q)),
                None => {
                    return Err(ParseError::UnknownName {
                        line: line.number,
                        name: printable(option),
                    });
                }
            }
        }
        Ok(())
    };
    let mut left = Vec::new();
    let mut right = Vec::new();
    for (p, line) in lines.iter().enumerate() {
        resolve(line, line.left, &mut left, p as u32)?;
        if partizan {
            resolve(line, line.right.unwrap_or(line.left), &mut right, p as u32)?;
        }
    }

    let positions = lines.len();
    let mut movers = vec![Moves::new(Csr::from_pairs(positions, left.into_iter()))];
    if partizan {
        movers.push(Moves::new(Csr::from_pairs(positions, right.into_iter())));
    }
    let names = Names::text(lines.iter().map(|line| line.name.to_owned()).collect());
    Ok(Graph::new(positions as u64, movers, names))
}

/// Splits one line into name and options; `None` for a blank or comment line.
fn split_line(number: u64, raw: &str) -> Result<Option<Line<'_>>, ParseError> {
    let content = raw.split('#').next().unwrap_or("");
    if content.trim().is_empty() {
        return Ok(None);
    }
    let syntax = |reason| ParseError::Syntax {
        line: number,
        reason,
    };
    let (name, options) = content
        .split_once(':')
        .ok_or(syntax("expected `name : options`"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(syntax("the position has no name before `:`"));
    }
    if !is_name(name) {
        return Err(syntax(
            "a name is one word (no white space, `:`, `|` or `#`)",
        ));
    }
    if options.contains(':') {
        return Err(syntax("more than one `:` on the line"));
    }
    let (left, right) = match options.split_once('|') {
        None => (options, None),
        Some((left, right)) => {
            if right.contains('|') {
                return Err(syntax("more than one `|` on the line"));
            }
            (left, Some(right))
        }
    };
    Ok(Some(Line {
        number,
        name,
        left,
        right,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kind, Player};
    use proptest::prelude::*;

    fn names(graph: &Graph, p: u32, player: Player) -> Vec<String> {
        graph
            .options(p, player)
            .iter()
            .map(|&q| graph.name(q).to_string())
            .collect()
    }

    #[test]
    fn reads_the_issue_example() {
        let text = "# comment\na   : b end | b      # partizan line: Left's options | Right's options\nb   : a | a\nend : |\n";
        let graph = parse_text(text.as_bytes()).unwrap();
        assert_eq!(graph.kind(), Kind::Partizan);
        assert_eq!(graph.positions(), 3);
        assert_eq!(graph.moves(), 5);
        assert_eq!(graph.lookup("end"), Some(2));
        assert_eq!(graph.name(0).to_string(), "a");
        assert_eq!(names(&graph, 0, Player::Left), ["b", "end"]);
        assert_eq!(names(&graph, 0, Player::Right), ["b"]);
        assert_eq!(names(&graph, 1, Player::Left), ["a"]);
        assert!(names(&graph, 2, Player::Right).is_empty());
        assert_eq!(graph.predecessors(0, Player::Right), &[1]);
    }

    #[test]
    fn a_file_without_bar_is_impartial_and_a_bar_less_line_of_a_partizan_file_is_shared() {
        let graph = parse_text(b"x: y y z\ny:\nz : x").unwrap();
        assert_eq!(graph.kind(), Kind::Impartial);
        assert_eq!(names(&graph, 0, Player::Left), ["y", "y", "z"]);
        assert_eq!(names(&graph, 0, Player::Right), ["y", "y", "z"]);
        assert_eq!(graph.moves(), 4);

        let graph = parse_text(b"x: y z\ny: | x\nz:").unwrap();
        assert_eq!(graph.kind(), Kind::Partizan);
        assert_eq!(names(&graph, 0, Player::Left), ["y", "z"]);
        assert_eq!(names(&graph, 0, Player::Right), ["y", "z"]);
        assert!(names(&graph, 1, Player::Left).is_empty());
        assert_eq!(names(&graph, 1, Player::Right), ["x"]);
        assert_eq!(graph.moves(), 5);
    }

    fn error(text: &str) -> String {
        match parse_text(text.as_bytes()) {
            Ok(_) => panic!("{text:?} parsed"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            error("a : b\n\nb : c\n"),
            "line 3: unknown position `c` (every option needs its own `c : ...` line)"
        );
        assert_eq!(
            error("a : \n# x\na : a\n"),
            "line 3: position `a` is already defined on line 1"
        );
        assert_eq!(error("a : \nb c\n"), "line 2: expected `name : options`");
        assert_eq!(
            error("a : b\u{1b}[2J\n"),
            "line 1: unknown position `b?[2J` (every option needs its own `b?[2J : ...` line)"
        );
        assert_eq!(
            error(" : a\n"),
            "line 1: the position has no name before `:`"
        );
        assert_eq!(
            error("a b : a\n"),
            "line 1: a name is one word (no white space, `:`, `|` or `#`)"
        );
        assert_eq!(
            error("a : b : c\n"),
            "line 1: more than one `:` on the line"
        );
        assert_eq!(error("a : | | \n"), "line 1: more than one `|` on the line");
        assert_eq!(error(""), "the file has no position");
        assert_eq!(error("# nothing\n   \n"), "the file has no position");
        assert_eq!(
            parse_text(b"a : a\n\xff : a\n").unwrap_err().to_string(),
            "line 2: the line is not valid UTF-8"
        );
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = parse_text(&bytes);
        }

        #[test]
        fn arbitrary_texts_never_panic(text in "([abc]|[ :|#\n\t]|é){0,60}") {
            if let Ok(graph) = parse_text(text.as_bytes()) {
                prop_assert!(graph.positions() > 0);
                for p in 0..graph.positions() as u32 {
                    prop_assert_eq!(graph.lookup(&graph.name(p).to_string()), Some(p));
                }
            }
        }
    }
}
