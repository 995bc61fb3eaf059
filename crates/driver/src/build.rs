//! What every long command shares: the thread pool, and the progress bar of a solve.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use retro_engine::{PlayConvention, Progress, SolveOptions};

/// Where a build that does not fit in memory keeps its scratch files when no `--work` is given: inside the output.
pub const WORK_DIR: &str = ".retro-work";

/// The options every solving command takes.
#[derive(Debug, Clone, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct EngineArgs {
    /// Worker threads (default: all cores). The result does not depend on it.
    #[cfg_attr(feature = "cli", arg(long))]
    pub threads: Option<usize>,
    /// The most memory the whole build may use, e.g. 512M or 16G: the sub-tables held for the exits, the table
    /// writer and the process come off it, the engine takes the rest (default: half the RAM, or half the memory
    /// cgroup's limit when that is lower). A table whose engine does not fit is built slice by slice through the
    /// work directory.
    #[cfg_attr(feature = "cli", arg(long, value_parser = parse_size, value_name = "SIZE"))]
    pub memory: Option<u64>,
    /// Directory for scratch files and checkpoints. With it, a build that is killed resumes from its last
    /// checkpoint when the same command runs again. Default: none when the table fits the memory budget, else
    /// a `.retro-work` directory next to the output.
    #[cfg_attr(feature = "cli", arg(long, value_name = "DIR"))]
    pub work: Option<PathBuf>,
    /// Ignore any checkpoint in the work directory and start over.
    #[cfg_attr(feature = "cli", arg(long))]
    pub fresh: bool,
    /// No progress display.
    #[cfg_attr(feature = "cli", arg(long))]
    pub quiet: bool,
    /// For tests: the work directory's writes fail as on a full disk after this many bytes.
    #[cfg_attr(feature = "cli", arg(long, hide = true, value_name = "BYTES"))]
    pub test_disk_full_after: Option<u64>,
    /// For tests: the engine's budget, whatever `--memory` says (the engine's own tests of many tiny slices, below
    /// the least a whole build can be given).
    #[cfg_attr(feature = "cli", arg(long, hide = true, value_name = "BYTES"))]
    pub test_engine_memory: Option<u64>,
    /// Keep the best outcome of every position's exits for the writer ([`SolveOptions::best_exits`]): set by
    /// `generate` for a table whose WDL file stores floors, never on the command line.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub best_exits: bool,
    /// For tests: whether the engine pulls wins where the game has turns (by default as its measured costs say).
    #[cfg_attr(feature = "cli", arg(skip))]
    pub test_pulling: retro_engine::Pulling,
}

impl EngineArgs {
    /// The engine's options; `default_work` is where scratch files go when the table does not fit in memory and no
    /// `--work` was given.
    pub fn options(&self, convention: PlayConvention, work: Option<PathBuf>) -> SolveOptions {
        SolveOptions {
            convention,
            work_dir: self.work.clone().or(work),
            memory: self.memory,
            fresh: self.fresh,
            best_exits: self.best_exits,
            testing: retro_engine::Testing {
                disk_full_after: self.test_disk_full_after,
                pulling: self.test_pulling,
                ..Default::default()
            },
        }
    }

    /// These options with `bytes` of the memory budget already taken, by tables a build holds for its exits: the
    /// budget bounds the whole build, not the engine's arrays alone.
    pub fn reserving(&self, bytes: u64) -> EngineArgs {
        let budget = self.memory.unwrap_or_else(retro_engine::default_budget);
        EngineArgs {
            memory: Some(budget.saturating_sub(bytes)),
            ..self.clone()
        }
    }

    /// Solves `game` with these options and a progress display: in memory when the table fits the budget, through
    /// `default_work` (created if needed) when it does not and no `--work` was given.
    pub fn solve<G: retro_engine::Game>(
        &self,
        game: &G,
        convention: PlayConvention,
        what: &str,
        default_work: Option<&Path>,
    ) -> Result<retro_engine::Solution> {
        let progress = SolveProgress::new(what, self.quiet);
        let attempt = |options: &SolveOptions| {
            with_threads(self.threads, || {
                retro_engine::solve_with_progress(game, options, &|p| progress.report(p))
            })
        };
        let mut result = attempt(&self.options(convention, None))?;
        if let (Err(retro_engine::EngineError::NeedsWorkDir { .. }), Some(dir)) =
            (&result, default_work)
        {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the work directory {}", dir.display()))?;
            result = attempt(&self.options(convention, Some(dir.to_owned())))?;
            // The engine empties its work directory when it succeeds; remove the directory we made.
            if result.is_ok() {
                let _ = std::fs::remove_dir(dir);
            }
        }
        progress.finish();
        let solution = result.with_context(|| format!("cannot solve {what}"))?;
        if !self.quiet
            && let Some(line) = out_of_core_line(solution.report())
        {
            eprintln!("{what}: {line}");
        }
        Ok(solution)
    }
}

/// What an out-of-core build did, in one line for standard error (standard output may be JSON); `None` for a
/// build in memory.
fn out_of_core_line(report: &retro_engine::Report) -> Option<String> {
    if report.slices == 0 {
        return None;
    }
    let mut line = format!(
        "out of core: {} slices of {} indices, {:.1} MB read and {:.1} MB written in the work directory, {} checkpoints",
        report.slices,
        report.slice_positions,
        report.bytes_read as f64 / 1e6,
        report.bytes_written as f64 / 1e6,
        report.checkpoints
    );
    if let Some(g) = report.resumed_at {
        line.push_str(&format!(", resumed at generation {g}"));
    }
    Some(line)
}

/// Parses a size such as `512M`, `16G`, `1.5GiB` or `1000000` (bytes). Units are powers of 1024.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (examples: 512M, 16G)"))?;
    let scale: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        _ => return Err(format!("`{text}` has an unknown unit (use K, M, G or T)")),
    };
    let bytes = number * scale as f64;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("`{text}` is not a usable size"));
    }
    Ok(bytes as u64)
}

/// Runs `work` in a rayon pool of `threads` threads (all cores when `None`).
pub fn with_threads<T: Send>(threads: Option<usize>, work: impl FnOnce() -> T + Send) -> Result<T> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        anyhow::ensure!(n > 0, "--threads must be at least 1");
        builder = builder.num_threads(n);
    }
    let pool = builder.build().context("cannot start the thread pool")?;
    Ok(pool.install(work))
}

/// A progress display for the engine, on a terminal only (nothing at all in pipes or with `--quiet`): during
/// initialisation a bar of the indices done, with their rate and the time left; then one line per generation with
/// the positions it resolved, all positions resolved so far, and the rate of the last generation.
pub struct SolveProgress {
    bar: Option<ProgressBar>,
    phase: std::sync::Mutex<Phase>,
}

/// What the display shows now, and since when the current generation runs.
#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Starting,
    Initialising,
    /// The last generation reported: when, and how many positions it walks back from.
    Generations {
        started: std::time::Instant,
        frontier: u64,
    },
}

impl SolveProgress {
    pub fn new(what: &str, quiet: bool) -> SolveProgress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_prefix(what.to_string());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        SolveProgress {
            bar,
            phase: std::sync::Mutex::new(Phase::Starting),
        }
    }

    /// Shows one report of the engine.
    pub fn report(&self, progress: &Progress) {
        let Some(bar) = &self.bar else { return };
        let mut phase = self.phase.lock().unwrap_or_else(|p| p.into_inner());
        match *progress {
            Progress::Initialising { done, size } => {
                if *phase != Phase::Initialising {
                    *phase = Phase::Initialising;
                    bar.set_style(
                        ProgressStyle::with_template(
                            "{prefix} initialising [{bar:30}] {percent}% {human_pos}/{human_len} indices, \
                             {per_sec:0}, {eta} left",
                        )
                        .expect("the template is valid"),
                    );
                    bar.set_length(size);
                    bar.reset_eta();
                }
                bar.set_position(done);
            }
            Progress::Generation {
                generation,
                frontier,
                resolved,
            } => {
                let now = std::time::Instant::now();
                let rate = match *phase {
                    Phase::Generations {
                        started,
                        frontier: walked,
                    } => {
                        let seconds = now.duration_since(started).as_secs_f64();
                        format!(
                            ", last generation {:.2} M positions/s",
                            walked as f64 / seconds.max(1e-3) / 1e6
                        )
                    }
                    _ => {
                        bar.set_style(
                            ProgressStyle::with_template(
                                "{spinner} {prefix} [{elapsed_precise}] {msg}",
                            )
                            .expect("the template is valid"),
                        );
                        String::new()
                    }
                };
                *phase = Phase::Generations {
                    started: now,
                    frontier,
                };
                bar.set_message(format!(
                    "generation {generation}: {frontier} positions to walk back from, {resolved} resolved{rate}"
                ));
            }
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{EngineArgs, parse_size};

    #[test]
    fn tables_held_for_exits_come_off_the_budget() {
        let args = EngineArgs {
            memory: Some(100 << 20),
            ..Default::default()
        };
        assert_eq!(args.reserving(30 << 20).memory, Some(70 << 20));
        assert_eq!(args.reserving(200 << 20).memory, Some(0));
        let default = EngineArgs::default().reserving(1 << 20).memory.unwrap();
        assert_eq!(default, retro_engine::default_budget() - (1 << 20));
    }

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("16G"), Ok(16 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("1.5g"), Ok(3 << 29));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("-1G").is_err());
    }
}
