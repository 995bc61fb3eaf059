//! The `retro` command line: a thin layer over the libraries. Each command lives in its own module; this file only
//! names them.

mod chess_cmd;
mod dense;
mod dobutsu_cmd;
mod graph_cmd;
mod graph_file;
mod grundy;
mod json;
mod run;
mod solve;
mod sum;
mod tables;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// retro: endgame tablebases by retrograde analysis.
#[derive(Parser, Debug)]
#[command(name = "retro", version, about, max_term_width = 110)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Solve a graph game and print every position's value (or the totals).
    Solve(solve::SolveArgs),
    /// Solve a game and write its tables (a win/draw/loss file and a distance file).
    #[command(subcommand)]
    Generate(Generate),
    /// Probe a position in the tables: its value and every move's value, best first.
    Probe(tables::ProbeArgs),
    /// Everything a table's header says, its sizes on disk and its histogram of plies.
    Info(tables::InfoArgs),
    /// Check every checksum of a table and certify every position's value from its moves.
    Verify(tables::VerifyArgs),
    /// Generalized Sprague–Grundy values of an impartial graph game (loopy games allowed).
    Grundy(grundy::GrundyArgs),
    /// The outcome of a sum of impartial graph games, and a winning move: `retro sum FILE:POS FILE:POS ...`.
    Sum(sum::SumArgs),
}

/// The games `retro generate` builds.
#[derive(Subcommand, Debug)]
enum Generate {
    /// A graph game read from a file; the table is named by the file's stem.
    Graph(graph_cmd::GenerateGraphArgs),
    /// Dobutsu shogi, the whole game: DIR/dobutsu/dobutsu.rwdl and .rdst.
    Dobutsu(dobutsu_cmd::GenerateDobutsuArgs),
    /// Chess endgame tables of up to 5 men: one material and the tables it depends on, or --all N.
    Chess(chess_cmd::GenerateChessArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Generate(Generate::Graph(args)) => graph_cmd::generate(args),
        Command::Generate(Generate::Dobutsu(args)) => dobutsu_cmd::generate(args),
        Command::Generate(Generate::Chess(args)) => chess_cmd::generate(args),
        Command::Probe(args) => tables::probe(args),
        Command::Info(args) => tables::info(args),
        Command::Verify(args) => tables::verify(args),
        Command::Grundy(args) => grundy::run(args),
        Command::Sum(args) => sum::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // One line: the error and its causes.
            eprintln!("retro: {error:#}");
            ExitCode::FAILURE
        }
    }
}
