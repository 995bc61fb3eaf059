//! The game families retro knows, one line each.
//!
//! A command written once for every family implements [`Visit`]; [`visit`] calls it with the family whose name was
//! given, as that family's own type, so that the engine is compiled for each game.

use anyhow::{Result, anyhow};
use retro_family::{About, Family};

/// A command run for one family, whichever it is.
pub trait Visit {
    type Output;
    fn visit<F: Family>(self, family: &F) -> Self::Output;
}

macro_rules! registry {
    ($($family:expr),* $(,)?) => {
        /// Runs `command` with the family called `name`; `None` when there is no such family.
        pub fn find<V: Visit>(name: &str, command: V) -> Option<V::Output> {
            $(
                if $family.about().name == name {
                    return Some(command.visit(&$family));
                }
            )*
            None
        }

        /// What each family says of itself, in the registry's order.
        pub fn families() -> Vec<About> {
            vec![$($family.about()),*]
        }
    };
}

// The registry: one line per family.
registry![
    retro_graph::family::Graphs,
    retro_chess::family::Chess,
    retro_dobutsu::family::Dobutsu,
    retro_tictactoe::TicTacToe,
    retro_connect4::ConnectFour,
    retro_quixo::Quixo,
];

/// Runs `command` with the family called `name`, or says which games there are.
pub fn visit<V: Visit>(name: &str, command: V) -> Result<V::Output> {
    find(name, command).ok_or_else(|| {
        let known: Vec<&str> = families().iter().map(|a| a.name).collect();
        anyhow!("unknown game {name:?} (known: {})", known.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_unknown_games_are_named() {
        let names: Vec<&str> = families().iter().map(|a| a.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "{names:?}");
        struct Name;
        impl Visit for Name {
            type Output = &'static str;
            fn visit<F: Family>(self, family: &F) -> &'static str {
                family.about().name
            }
        }
        for name in &names {
            assert_eq!(visit(name, Name).unwrap(), *name);
        }
        let error = visit("go", Name).unwrap_err().to_string();
        assert!(
            error.starts_with("unknown game \"go\" (known: graph, chess"),
            "{error}"
        );
    }
}
